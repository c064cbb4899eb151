import { formatLocalDateTime } from '../../../domain/alerts/local-time.js';
import { messageJsonWithGroup } from '../../../domain/messages/message-json.js';
import { shownGroupId } from '../../../domain/groups/unassigned-group.js';
import type { StoredMessage } from '../../../domain/messages/message-types.js';
import { iterateEvents, type EventQueueBound } from '../event-iterator.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

// Over plain HTTP there is no live connection (graphql-http refuses subscriptions); this bound is never reached.
const unbounded: EventQueueBound = { queueLimit: Number.MAX_SAFE_INTEGER, overflowed: () => undefined };

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

/**
 * Live data for signed-in users, fed by the domain events (SPEC section 4): every stored uplink of the caller's
 * organization (optionally one thing or one group), and every alert period opening or closing.
 */
export const subscriptionResolvers = {
  Subscription: {
    messages: {
      subscribe: (_: unknown, args: { tuid?: string | null; groupId?: string | null }, context: GraphqlContext) => {
        const { organizationId } = userOf(context);
        const group = args.groupId ?? undefined;
        return iterateEvents(context.deps.events, 'messagesStored', context.live ?? unbounded, ({ messages }) =>
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
    alerts: {
      subscribe: (_: unknown, _args: unknown, context: GraphqlContext) => {
        const { organizationId } = userOf(context);
        const zone = context.deps.config.alertTimeZone;
        return iterateEvents(context.deps.events, 'alertChanged', context.live ?? unbounded, (event) =>
          event.organizationId !== organizationId
            ? []
            : [
                {
                  alerts: {
                    tuid: event.tuid,
                    alertType: event.alertType,
                    state: event.state,
                    from: formatLocalDateTime(event.openedAt, zone),
                    to: event.closedAt === null ? null : formatLocalDateTime(event.closedAt, zone),
                  },
                },
              ],
        );
      },
    },
  },
};
