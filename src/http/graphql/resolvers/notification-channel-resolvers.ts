import {
  createChannel,
  deleteChannel,
  listChannelDeliveries,
  listChannels,
  setAlertChannels,
  testChannel,
  updateChannel,
} from '../../../domain/channels/channel-service.js';
import type { ChannelInput, NotificationChannel } from '../../../domain/channels/channel-types.js';
import { shownChatUrl } from '../../../domain/channels/chat-url-shown.js';
import { serviceUnavailable } from '../../../domain/errors.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';
import { presentAttempt, presentDelivery } from './webhook-resolvers.js';

/** `url` whole only in the creation's answer (`reveal`): a chat URL is its own secret. */
function presentChannel(c: NotificationChannel, reveal = false) {
  const url = reveal ? c.url : shownChatUrl(c.url);
  return { id: c.id, name: c.name, type: c.type, to: c.to, url, createdAt: c.createdAt / 1000, updatedAt: c.updatedAt / 1000 };
}

type InputArgs = { [K in keyof ChannelInput]?: ChannelInput[K] | null };

/** GraphQL's nulls are "not given" here, as REST's absent fields. */
function inputOf(input: InputArgs): ChannelInput {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null)) as ChannelInput;
}

function channelDeps(context: GraphqlContext) {
  if (!context.deps.webhooks) throw serviceUnavailable('Notification channels are not available here.');
  return context.deps;
}

/** GraphQL's names of the built-in alert types. */
const alertTypeNames = {
  batteryLow: 'battery low',
  gatewayConnectionLost: 'gateway connection lost',
  deviceConnectionLost: 'device connection lost',
} as const;

/** Notification channels: the same domain functions as REST. */
export const notificationChannelResolvers = {
  Query: {
    notificationChannels: async (_: unknown, _args: unknown, context: GraphqlContext) =>
      (await listChannels(context.deps, userOf(context))).map((c) => presentChannel(c)),
    notificationChannelDeliveries: async (
      _: unknown,
      args: { id: string; limit?: number | null; cursor?: string | null },
      context: GraphqlContext,
    ) => {
      const page = await listChannelDeliveries(context.deps, userOf(context), args.id, {
        limit: args.limit ?? undefined,
        cursor: args.cursor ?? undefined,
      });
      return { deliveries: page.deliveries.map(presentDelivery), nextCursor: page.nextCursor };
    },
  },
  Mutation: {
    createNotificationChannel: async (_: unknown, args: { input: InputArgs }, context: GraphqlContext) =>
      presentChannel(await createChannel(channelDeps(context), userOf(context), inputOf(args.input)), true),
    updateNotificationChannel: async (_: unknown, args: { id: string; input: InputArgs }, context: GraphqlContext) =>
      presentChannel(await updateChannel(channelDeps(context), userOf(context), args.id, inputOf(args.input))),
    deleteNotificationChannel: async (_: unknown, args: { id: string }, context: GraphqlContext) => {
      await deleteChannel(channelDeps(context), userOf(context), args.id);
      return true;
    },
    testNotificationChannel: async (_: unknown, args: { id: string }, context: GraphqlContext) =>
      presentAttempt(await testChannel(channelDeps(context), userOf(context), args.id)),
    setAlertChannels: async (_: unknown, args: { input: Record<string, string[] | null> }, context: GraphqlContext) => {
      const input = Object.fromEntries(
        Object.entries(args.input)
          .filter(([, ids]) => ids !== null)
          .map(([name, ids]) => [alertTypeNames[name as keyof typeof alertTypeNames], ids]),
      );
      await setAlertChannels(channelDeps(context), userOf(context), input);
      return true;
    },
  },
};
