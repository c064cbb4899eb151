import { Type, type Static } from '@sinclair/typebox';
import {
  createChannel,
  deleteChannel,
  getChannel,
  listChannelDeliveries,
  listChannels,
  testChannel,
  updateChannel,
} from '../../../domain/channels/channel-service.js';
import { channelTypes, type ChannelInput, type NotificationChannel } from '../../../domain/channels/channel-types.js';
import { shownChatUrl } from '../../../domain/channels/chat-url-shown.js';
import { channelLimits } from '../../../domain/channels/channel-validation.js';
import { serviceUnavailable } from '../../../domain/errors.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { UnixSeconds, dataOf, errors } from '../schemas.js';
import { Attempt, Delivery, presentAttempt, presentDelivery } from './webhook-routes.js';

const fields = {
  name: Type.String({ description: `1..${channelLimits.nameLength.max} characters` }),
  type: Type.Union(
    channelTypes.map((t) => Type.Literal(t)),
    { description: '`email` (through SMTP_URL) or `chat` (a Slack-compatible incoming webhook)' },
  ),
  to: Type.Array(Type.String(), {
    maxItems: channelLimits.recipients,
    description: 'E-mail channels: the recipients’ addresses',
  }),
  url: Type.String({
    description:
      'Chat channels: a Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat, Discord’s `/slack` path), POSTed `{"text": ...}`; the address rules of webhooks apply',
  }),
};
const CreateBody = Type.Object(
  { name: fields.name, type: fields.type, to: Type.Optional(fields.to), url: Type.Optional(fields.url) },
  { additionalProperties: false },
);
const PatchBody = Type.Object(
  { name: Type.Optional(fields.name), type: Type.Optional(fields.type), to: Type.Optional(fields.to), url: Type.Optional(fields.url) },
  { additionalProperties: false },
);
const Channel = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: fields.type,
  to: Type.Union([Type.Array(Type.String()), Type.Null()]),
  url: Type.Union([Type.String(), Type.Null()], {
    description:
      'Chat channels: the whole URL in the answer to the creation only (it is the chat’s secret); afterwards its scheme, host and port followed by `/…`. Null for e-mail.',
  }),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
const IdParams = Type.Object({ id: Type.String() });
const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'default 50' })),
  cursor: Type.Optional(Type.String()),
});

/** `url` whole only in the creation's answer (`reveal`): a chat URL is its own secret. */
export function presentChannel(c: NotificationChannel, reveal = false): Static<typeof Channel> {
  const url = reveal ? c.url : shownChatUrl(c.url);
  return { id: c.id, name: c.name, type: c.type, to: c.to, url, created_at: c.createdAt / 1000, updated_at: c.updatedAt / 1000 };
}

function inputOf(body: Partial<Static<typeof CreateBody>>): ChannelInput {
  return { name: body.name, type: body.type, to: body.to, url: body.url };
}

/** Notification channels (SPEC section 13): Managers and API clients only (they hold addresses and webhook URLs). */
export function registerNotificationChannelRoutes(app: RestApp, deps: RestDeps): void {
  const tags = ['notification channels'];
  const channelDeps = () => {
    if (!deps.webhooks) throw serviceUnavailable('Notification channels are not available here.');
    return deps;
  };

  app.post(
    '/notification-channels',
    {
      schema: {
        operationId: 'createNotificationChannel',
        tags,
        summary: 'Create an e-mail or chat channel that alert rules and built-in alerts notify',
        body: CreateBody,
        response: { 200: dataOf(Channel), ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => ({ data: presentChannel(await createChannel(channelDeps(), request.client, inputOf(request.body)), true) }),
  );

  app.get(
    '/notification-channels',
    {
      schema: {
        operationId: 'listNotificationChannels',
        tags,
        summary: "List the organization's notification channels by name",
        response: { 200: dataOf(Type.Array(Channel)), ...errors(401, 403, 429) },
      },
    },
    async (request) => ({ data: (await listChannels(deps, request.client)).map((c) => presentChannel(c)) }),
  );

  app.get(
    '/notification-channels/:id',
    {
      schema: {
        operationId: 'getNotificationChannel',
        tags,
        summary: 'Read a notification channel',
        params: IdParams,
        response: { 200: dataOf(Channel), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({ data: presentChannel(await getChannel(deps, request.client, request.params.id)) }),
  );

  app.patch(
    '/notification-channels/:id',
    {
      schema: {
        operationId: 'updateNotificationChannel',
        tags,
        summary: 'Change a channel’s name, recipients or URL (not its type)',
        params: IdParams,
        body: PatchBody,
        response: { 200: dataOf(Channel), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({
      data: presentChannel(await updateChannel(channelDeps(), request.client, request.params.id, inputOf(request.body))),
    }),
  );

  app.delete(
    '/notification-channels/:id',
    {
      schema: {
        operationId: 'deleteNotificationChannel',
        tags,
        summary: 'Delete a channel; its waiting notifications are dropped',
        params: IdParams,
        response: { 200: dataOf(Type.Object({ id: Type.String(), deleted: Type.Boolean() })), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      await deleteChannel(channelDeps(), request.client, request.params.id);
      return { data: { id: request.params.id, deleted: true } };
    },
  );

  app.post(
    '/notification-channels/:id/test',
    {
      schema: {
        operationId: 'testNotificationChannel',
        tags,
        summary: 'Send a test notification now and answer that attempt (logged in the channel’s deliveries)',
        params: IdParams,
        response: { 200: dataOf(Attempt), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({ data: presentAttempt(await testChannel(channelDeps(), request.client, request.params.id)) }),
  );

  app.get(
    '/notification-channels/:id/deliveries',
    {
      schema: {
        operationId: 'listNotificationChannelDeliveries',
        tags,
        summary: 'The delivery log of a channel, newest first, with every attempt (retried on WEBHOOK_RETRY_SCHEDULE)',
        params: IdParams,
        querystring: DeliveriesQuery,
        response: {
          200: Type.Object({ data: Type.Array(Delivery), next_cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const { deliveries, nextCursor } = await listChannelDeliveries(deps, request.client, request.params.id, request.query);
      return { data: deliveries.map(presentDelivery), next_cursor: nextCursor };
    },
  );
}
