import { listCommandHistory } from '../../../domain/commands/command-history.js';
import { sendCommands } from '../../../domain/commands/send-commands.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

/** Commands and their history: the same domain functions as REST, `responsible` is the user's e-mail. */
export const commandResolvers = {
  Query: {
    commands: (_: unknown, args: { tuid: string; limit?: number | null }, context: GraphqlContext) =>
      listCommandHistory(context.deps, userOf(context), { tuid: args.tuid, limit: args.limit ?? undefined }),
  },
  Mutation: {
    sendCommands: (_: unknown, args: { tuid: string; commands: unknown[] }, context: GraphqlContext) =>
      sendCommands(context.deps, userOf(context), { tuid: args.tuid, commands: args.commands }),
  },
};
