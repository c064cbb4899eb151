import { AppError, unauthenticated, type ErrorCode } from '../../../domain/errors.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

const loginFailureReasons: Partial<Record<ErrorCode, string>> = {
  UNAUTHENTICATED: 'invalid',
  RATE_LIMITED: 'throttled',
  SERVICE_UNAVAILABLE: 'busy',
};

/** login, refreshToken and logout, with exactly the seed's names and selections (seed 001 part 4). */
export const sessionResolvers = {
  Mutation: {
    login: async (
      _: unknown,
      args: { loginInput: { email: string; password: string; organizationName: string } },
      context: GraphqlContext,
    ) => {
      try {
        return await context.deps.sessions.login({ ...args.loginInput, address: context.address });
      } catch (error) {
        // Counted for operators (thingdesk_login_failures_total); the caller's answer is unchanged.
        const reason = error instanceof AppError ? loginFailureReasons[error.code] : undefined;
        if (reason) context.deps.metrics.loginFailures.inc({ reason });
        throw error;
      }
    },
    ssoLogin: (_: unknown, args: { code: string }, context: GraphqlContext) => {
      if (!context.deps.ssoSignIn) throw unauthenticated('Single sign-on is not configured on this platform (OIDC_ISSUER).');
      return context.deps.ssoSignIn.exchangeCode(args.code);
    },
    refreshToken: (_: unknown, args: { refreshTokenInput: { organizationId: string; refreshToken: string } }, context: GraphqlContext) =>
      context.deps.sessions.refresh(args.refreshTokenInput),
    logout: async (_: unknown, _args: unknown, context: GraphqlContext) => ({
      success: await context.deps.sessions.logout(userOf(context)),
    }),
  },
};
