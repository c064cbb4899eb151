import { unauthenticated } from '../../../domain/errors.js';
import type { UserPrincipal } from '../../../domain/auth/principal.js';
import type { EventQueueBound } from '../event-iterator.js';
import type { GraphqlContext } from '../graphql-deps.js';

/**
 * The signed-in caller. The role schemas already keep anonymous callers away from these fields; this is the
 * second lock, for a resolver reached some other way.
 */
export function userOf(context: GraphqlContext): UserPrincipal {
  if (!context.principal) throw unauthenticated();
  return context.principal;
}

/** A subscription's queue over plain HTTP, where there is no live connection (graphql-http refuses subscriptions): never reached. */
export const unboundedQueue: EventQueueBound = { queueLimit: Number.MAX_SAFE_INTEGER, overflowed: () => undefined };
