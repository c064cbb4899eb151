import type { Config } from '../../config/config.js';
import type { CommandDownlink } from '../../domain/commands/command-downlink.js';
import type { DomainDeps } from '../../domain/domain-deps.js';
import type { UserPrincipal } from '../../domain/auth/principal.js';
import type { UserSessions } from '../../domain/auth/user-sessions.js';
import type { Metrics } from '../../observability/metrics.js';
import type { RateLimiter } from '../rate-limiter.js';
import type { EventQueueBound } from './event-iterator.js';
import type { RawJsonSplicer } from './raw-json.js';

/** Everything the GraphQL transport and its resolvers use, handed over by the composition root. */
export interface GraphqlDeps extends DomainDeps {
  config: Config;
  sessions: UserSessions;
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
  deps: GraphqlDeps;
  /** Set when the transport can put stored JSON texts into its response unparsed (HTTP); see raw-json.ts. */
  rawJson?: RawJsonSplicer;
  /** Set on WebSocket and SSE: the live connection a subscription's events are queued for (live-streams.ts). */
  live?: EventQueueBound;
}
