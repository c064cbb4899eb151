import type { ServerResponse } from 'node:http';
import type { RequestWork } from '../domain/workload/request-work.js';

/** A request's heavy work, and the way its transport abandons it. */
export interface AbandonableWork extends RequestWork {
  readonly signal: AbortSignal;
  /** Nobody waits for the rest of this request's work: the domain stops at its next store read. */
  abandon(): void;
}

/**
 * The reason every abandoned request's signal carries. `abort()` without one builds a DOMException, stack trace
 * included, and every request's work is abandoned when its response closes: a hostile soak's CPU profile found 2 %
 * of the event loop there. Nobody reads the reason (stopIfAbandoned asks `aborted`), so one object serves all.
 */
export const abandonedReason = new Error('the request was abandoned: its answer is no longer awaited');

/**
 * The work of one HTTP request (REST or GraphQL), abandoned when its response closes: sent in full (whatever is
 * still running, a GraphQL resolver whose sibling failed, can no longer change it), failed, or cut by a client that
 * went away (its socket ended). The domain checks the signal between store reads (domain/workload/).
 */
export function workOfResponse(response: ServerResponse): AbandonableWork {
  const controller = new AbortController();
  const abandon = () => controller.abort(abandonedReason);
  // A client that goes away is seen first as the end of its half of the connection (Node aborts the request then
  // too); the response closes a few turns of the event loop later.
  const socket = response.socket;
  socket?.once('end', abandon);
  response.once('close', () => {
    socket?.off('end', abandon);
    abandon();
  });
  return { signal: controller.signal, abandon };
}
