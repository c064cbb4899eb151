import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

/** login, refreshToken and logout, with exactly the seed's names and selections (seed 001 part 4). */
export const sessionResolvers = {
  Mutation: {
    login: (_: unknown, args: { loginInput: { email: string; password: string; organizationName: string } }, context: GraphqlContext) =>
      context.deps.sessions.login(args.loginInput),
    refreshToken: (_: unknown, args: { refreshTokenInput: { organizationId: string; refreshToken: string } }, context: GraphqlContext) =>
      context.deps.sessions.refresh(args.refreshTokenInput),
    logout: async (_: unknown, _args: unknown, context: GraphqlContext) => ({ success: await context.deps.sessions.logout(userOf(context)) }),
  },
};
