import { answeredCommand, listCommandHistory } from '../../../domain/commands/command-history.js';
import type { CommandHistoryRecord } from '../../../domain/commands/command-types.js';
import { sendCommands } from '../../../domain/commands/send-commands.js';
import { iterateEvents } from '../event-iterator.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { unboundedQueue, userOf } from './resolver-helpers.js';

/** Commands and their history: the same domain functions as REST, `responsible` is the user's e-mail. */
export const commandResolvers = {
  CommandRecord: {
    status: (record: CommandHistoryRecord) => record.command.status,
    statuses: (record: CommandHistoryRecord) => record.commands.map((command) => command.status),
  },
  Query: {
    commands: (_: unknown, args: { tuid: string; limit?: number | null }, context: GraphqlContext) =>
      listCommandHistory(context.deps, userOf(context), { tuid: args.tuid, limit: args.limit ?? undefined }),
  },
  Subscription: {
    // Answers are matched on whichever instance consumed them; the event is relayed to the others (cluster-events.ts).
    commandStatus: {
      subscribe: (_: unknown, args: { tuid?: string | null }, context: GraphqlContext) => {
        const { organizationId } = userOf(context);
        return iterateEvents(context.deps.events, 'commandAnswered', context.live ?? unboundedQueue, (event) =>
          event.organizationId !== organizationId || (args.tuid != null && event.tuid !== args.tuid)
            ? []
            : [
                {
                  commandStatus: {
                    tuid: event.tuid,
                    transactionId: event.transactionId,
                    status: event.status,
                    command: answeredCommand(event),
                  },
                },
              ],
        );
      },
    },
  },
  Mutation: {
    sendCommands: (_: unknown, args: { tuid: string; commands: unknown[] }, context: GraphqlContext) =>
      sendCommands(context.deps, userOf(context), { tuid: args.tuid, commands: args.commands }),
  },
};
