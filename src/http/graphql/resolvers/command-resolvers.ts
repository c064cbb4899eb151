import { listCommandHistory } from '../../../domain/commands/command-history.js';
import type { CommandHistoryRecord } from '../../../domain/commands/command-types.js';
import { sendCommands } from '../../../domain/commands/send-commands.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

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
  Mutation: {
    sendCommands: (_: unknown, args: { tuid: string; commands: unknown[] }, context: GraphqlContext) =>
      sendCommands(context.deps, userOf(context), { tuid: args.tuid, commands: args.commands }),
  },
};
