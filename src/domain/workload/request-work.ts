import { AppError } from '../errors.js';

/**
 * One request's share of heavy work (series, exports, the fleet overview), as its transport hands it to the domain:
 * the signal that tells the domain nobody waits for the answer any more (the response failed or went out without
 * it, or the client went away), checked between store reads. The object itself is the request's identity for the
 * per-caller cap (heavy-work-gate.ts): every heavy operation of one request shares one slot.
 */
export interface RequestWork {
  readonly signal?: AbortSignal;
}

/**
 * Throws when the request's work was abandoned, so that a heavy operation stops at its next store read instead of
 * reading for an answer nobody reads. Nobody sees the error (there is no one left to answer), so it is an AppError
 * only so that it is not logged as a failure.
 */
export function stopIfAbandoned(work: RequestWork): void {
  if (work.signal?.aborted) throw new AppError('SERVICE_UNAVAILABLE', 'The request was abandoned: its answer is no longer awaited.');
}
