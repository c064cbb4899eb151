import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Config } from '../../config/config.js';
import type { CommandDownlink } from '../../domain/commands/command-downlink.js';
import type { DomainDeps } from '../../domain/domain-deps.js';
import type { ClientTokens } from '../../domain/auth/client-tokens.js';
import type { ProviderAccessTokens } from '../../domain/sso/provider-access-tokens.js';
import type { RateLimiter } from '../rate-limiter.js';

/** Everything the REST routes use, handed over by the composition root. */
export interface RestDeps extends DomainDeps {
  config: Config;
  clientTokens: ClientTokens;
  /** The identity provider's access tokens, when OIDC_ACCEPT_ACCESS_TOKENS=true. */
  providerTokens?: ProviderAccessTokens;
  /** Where sent commands go out (the MQTT downlink). */
  downlink: CommandDownlink;
  /** Requests per minute per verified caller (API client or user) and per client address. */
  limits: { perCaller: RateLimiter; perAddress: RateLimiter };
}

/** The REST scope with the TypeBox type provider: each route's schemas give its handler the types of its input. */
export type RestApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
