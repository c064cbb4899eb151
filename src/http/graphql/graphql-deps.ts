import type { Config } from '../../config/config.js';
import type { CommandDownlink } from '../../domain/commands/command-downlink.js';
import type { DomainDeps } from '../../domain/domain-deps.js';
import type { UserPrincipal } from '../../domain/auth/principal.js';
import type { UserSessions } from '../../domain/auth/user-sessions.js';
import type { SsoSignIn } from '../../domain/sso/sso-sign-in.js';
import type { RequestWork } from '../../domain/workload/request-work.js';
import type { Metrics } from '../../observability/metrics.js';
import type { RateLimiter } from '../rate-limiter.js';
import type { EventQueueBound } from './event-iterator.js';
import type { RawJsonSplicer } from './raw-json.js';

/** Everything the GraphQL transport and its resolvers use, handed over by the composition root. */
export interface GraphqlDeps extends DomainDeps {
  config: Config;
  sessions: UserSessions;
  /** Single sign-on (OIDC_ISSUER): `ssoLogin` exchanges its one-time codes; undefined when it is off. */
  ssoSignIn?: SsoSignIn;
  /** Where sent commands go out (the MQTT downlink). */
  downlink: CommandDownlink;
  /** Requests per minute per verified caller (API client or user) and per client address. */
  limits: { perCaller: RateLimiter; perAddress: RateLimiter };
  /** Where operations and sign-in failures are counted. */
  metrics: Metrics;
}

/** Per operation: who calls (undefined when not signed in) and the collaborators. */
export interface GraphqlContext {
  principal: UserPrincipal | undefined;
  /** The client's address (request.ip: the peer, or the client a trusted proxy names), for sign-in's throttle. */
  address: string;
  deps: GraphqlDeps;
  /** Set when the transport can put stored JSON texts into its response unparsed (HTTP); see raw-json.ts. */
  rawJson?: RawJsonSplicer;
  /** Set over HTTP: what the operation's outcome asks of the HTTP answer (graphql-plugin.ts). */
  answer?: GraphqlAnswer;
  /** Set on WebSocket and SSE: the live connection a subscription's events are queued for (live-streams.ts). */
  live?: EventQueueBound;
  /**
   * The operation's heavy work, one object per operation: its heavy fields share one slot of the caller's cap, and
   * over HTTP its signal stops them once the response no longer waits for them (abandoned-requests.ts).
   */
  work: RequestWork & { abandon?(): void };
}

/** What an operation executed over HTTP asks of the HTTP answer besides its body. */
export interface GraphqlAnswer {
  /** `Retry-After` (seconds), for an operation refused as throttled or busy. */
  retryAfterS?: number;
}
