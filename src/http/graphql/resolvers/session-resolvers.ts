import { AppError } from '../../../domain/errors.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

/** login, refreshToken and logout, with exactly the seed's names and selections (seed 001 part 4). */
export const sessionResolvers = {
  Mutation: {
    login: async (
      _: unknown,
      args: { loginInput: { email: string; password: string; organizationName: string } },
      context: GraphqlContext,
    ) => {
      try {
        return await context.deps.sessions.login(args.loginInput);
      } catch (error) {
        // Counted for operators (thingdesk_login_failures_total); the caller's answer is unchanged.
        if (error instanceof AppError && (error.code === 'UNAUTHENTICATED' || error.code === 'RATE_LIMITED')) {
          context.deps.metrics.loginFailures.inc({ reason: error.code === 'RATE_LIMITED' ? 'throttled' : 'invalid' });
        }
        throw error;
      }
    },
    refreshToken: (_: unknown, args: { refreshTokenInput: { organizationId: string; refreshToken: string } }, context: GraphqlContext) =>
      context.deps.sessions.refresh(args.refreshTokenInput),
    logout: async (_: unknown, _args: unknown, context: GraphqlContext) => ({
      success: await context.deps.sessions.logout(userOf(context)),
    }),
  },
};
