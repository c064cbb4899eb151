import { listMessages } from '../../../domain/messages/message-query.js';
import { messageJsonWithGroup } from '../../../domain/messages/message-json.js';
import type { StoredMessage } from '../../../domain/messages/message-types.js';
import { shownGroupId } from '../../../domain/groups/unassigned-group.js';
import { iterateEvents } from '../event-iterator.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { unboundedQueue, userOf } from './resolver-helpers.js';

// Every subscriber of an organization sees the same stored message: parse it once, whatever their number.
const parsed = new WeakMap<StoredMessage, unknown>();
function messageValue(message: StoredMessage): unknown {
  let value = parsed.get(message);
  if (value === undefined) {
    value = JSON.parse(messageJsonWithGroup(message.body, message.groupId)) as unknown;
    parsed.set(message, value);
  }
  return value;
}

type MessagesArguments = {
  tuid: string;
  messageIds?: number[] | null;
  eventIds?: number[] | null;
  from?: number | null;
  to?: number | null;
  limit: number;
};

/**
 * A thing's stored messages, and every stored uplink of the caller's organization live (optionally one thing or
 * one group), fed by the domain's `messagesStored` (SPEC section 4).
 */
export const messageResolvers = {
  Query: {
    messages: async (_: unknown, args: MessagesArguments, context: GraphqlContext) => {
      const texts = await listMessages(
        context.deps,
        userOf(context),
        {
          tuid: args.tuid,
          limit: args.limit,
          messageIds: args.messageIds ?? undefined,
          eventIds: args.eventIds ?? undefined,
          from: args.from ?? undefined,
          to: args.to ?? undefined,
        },
        context.work,
      );
      const { rawJson } = context;
      return rawJson ? texts.map((text) => rawJson.wrap(text)) : texts.map((text) => JSON.parse(text) as unknown);
    },
  },
  Subscription: {
    messages: {
      subscribe: (_: unknown, args: { tuid?: string | null; groupId?: string | null }, context: GraphqlContext) => {
        const { organizationId } = userOf(context);
        const group = args.groupId ?? undefined;
        return iterateEvents(context.deps.events, 'messagesStored', context.live ?? unboundedQueue, ({ messages }) =>
          messages
            .filter(
              (m) =>
                m.organizationId === organizationId &&
                (args.tuid == null || m.tuid === args.tuid) &&
                (group === undefined || shownGroupId(m.groupId) === group),
            )
            .map((m) => ({ messages: messageValue(m) })),
        );
      },
    },
  },
};
