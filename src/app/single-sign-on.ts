import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { UserSessions } from '../domain/auth/user-sessions.js';
import type { Clock } from '../domain/clock.js';
import type { DomainEventBus } from '../domain/events.js';
import { OidcRelyingParty } from '../domain/sso/oidc-relying-party.js';
import { ProviderAccessTokens } from '../domain/sso/provider-access-tokens.js';
import { SsoSignIn } from '../domain/sso/sso-sign-in.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import { registerOidcRoutes } from '../http/sso/oidc-routes.js';
import type { Logger } from '../observability/logger.js';
import type { Store } from '../store/store.js';

/**
 * Builds single sign-on from OIDC_* (SPEC section 15): the relying party (discovery on first use, so a provider
 * that is down does not stop the platform's start), the provider's access tokens when OIDC_ACCEPT_ACCESS_TOKENS,
 * and, once the sessions exist, the `/auth/oidc/*` routes. Without OIDC_ISSUER only `/auth/oidc/config` answers.
 */
export function buildSingleSignOn(deps: { config: Config; store: Store; clock: Clock; events: DomainEventBus; logger: Logger }) {
  const { sso } = deps.config;
  const oidc = sso.oidc;
  const relyingParty = oidc && new OidcRelyingParty({ store: deps.store, clock: deps.clock }, oidc, sso.publicUrl!);
  const providerTokens =
    relyingParty && oidc.acceptAccessTokens
      ? new ProviderAccessTokens(
          { clock: deps.clock, relyingParty },
          { ...oidc, audience: oidc.audience!, organization: oidc.organization! },
        )
      : undefined;
  return {
    providerTokens,
    /** Registers the routes; answers the sign-in service GraphQL's `ssoLogin` uses (undefined when SSO is off). */
    register(http: FastifyInstance, sessions: UserSessions, perAddress: RateLimiter): SsoSignIn | undefined {
      const signIn =
        relyingParty &&
        new SsoSignIn({ store: deps.store, clock: deps.clock, events: deps.events, sessions, logger: deps.logger }, oidc, relyingParty);
      registerOidcRoutes(http, { sso, signIn, perAddress });
      return signIn;
    },
  };
}
