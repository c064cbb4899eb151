import type { Principal } from '../auth/principal.js';
import { AppError } from '../errors.js';
import { stopIfAbandoned, type RequestWork } from './request-work.js';

/** Seconds a caller refused by the cap is told to wait: heavy reads take about that long. */
const retryAfterS = 1;

/**
 * At most `perCaller` requests of one caller (an API client or a user) doing heavy work at once on this instance
 * (HEAVY_REQUESTS_PER_CALLER): raw and rolled-up series of things and groups, message exports, the fleet overview,
 * REST and GraphQL alike. One more is refused with RATE_LIMITED and a retry time, before it reads anything. The
 * operations of one request (a GraphQL request's aliases) share its one slot: what a single request may ask for is
 * bounded by its cost (GRAPHQL_COST_LIMIT), this bounds how many such requests run side by side.
 *
 * The count is per instance, not shared through the store as the rate limits are: it is a level, not a rate, so
 * sharing it means a store write when each heavy request starts and ends (the very load it protects from), and a
 * crashed instance's slots would stay taken until some expiry. A deployment's bound is this cap times its
 * instances (docs/decisions.md).
 */
export class HeavyWorkGate {
  private readonly byCaller = new Map<string, number>();
  private readonly held = new WeakMap<RequestWork, { caller: string; operations: number }>();

  constructor(readonly perCaller: number) {}

  /**
   * Runs `read` in a slot of the caller's: the request's own when it holds one already, a new one when the caller
   * has fewer than `perCaller`, RATE_LIMITED otherwise. Refuses abandoned work before it starts.
   */
  async run<T>(principal: Principal, work: RequestWork, read: () => Promise<T>): Promise<T> {
    const release = this.enter(principal, work);
    try {
      return await read();
    } finally {
      release();
    }
  }

  /** Takes a slot as `run` does and answers the function that gives it back (once, whatever the calls). */
  enter(principal: Principal, work: RequestWork): () => void {
    stopIfAbandoned(work);
    const caller = callerKeyOf(principal);
    let holding = this.held.get(work);
    if (!holding) {
      const count = this.byCaller.get(caller) ?? 0;
      if (count >= this.perCaller) {
        throw new AppError(
          'RATE_LIMITED',
          `At most ${this.perCaller} requests of one caller may read series, exports or the fleet overview at once ` +
            `(HEAVY_REQUESTS_PER_CALLER); retry in ${retryAfterS} second.`,
          [],
          { retryAfterS },
        );
      }
      this.byCaller.set(caller, count + 1);
      holding = { caller, operations: 0 };
      this.held.set(work, holding);
    }
    holding.operations += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      holding.operations -= 1;
      if (holding.operations > 0) return;
      this.held.delete(work);
      const left = (this.byCaller.get(holding.caller) ?? 1) - 1;
      if (left > 0) this.byCaller.set(holding.caller, left);
      else this.byCaller.delete(holding.caller);
    };
  }
}

/**
 * Runs a heavy read under the caller's cap when the deps carry one (the serving process always does; a test or the
 * CLI calling the domain directly may not), and not at all when its request was abandoned.
 */
export function runHeavyWork<T>(
  deps: { heavyWork?: HeavyWorkGate },
  principal: Principal,
  work: RequestWork,
  read: () => Promise<T>,
): Promise<T> {
  if (deps.heavyWork) return deps.heavyWork.run(principal, work, read);
  stopIfAbandoned(work);
  return read();
}

/** Who a slot belongs to: the API client or the user, within its organization. */
function callerKeyOf(principal: Principal): string {
  return principal.kind === 'client' ? `client:${principal.organizationId}:${principal.clientId}` : `user:${principal.userId}`;
}
