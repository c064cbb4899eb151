import type { RateLimiter } from '../http/rate-limiter.js';
import type { Logger } from '../observability/logger.js';
import type { RateCountsStore } from '../store/rate-counts-store.js';

// A key counted here fewer than limit / 32 times cannot, by this instance's share, push the deployment more than a
// thirty-second of the limit past it: only the keys above are looked up, so a sync reads a handful of rows, not
// every caller of the minute. With three instances that bounds the overshoot at about a tenth of the limit.
const lookupShare = 32;

/**
 * Makes RATE_LIMIT_PER_TOKEN and RATE_LIMIT_PER_ADDRESS hold for the whole deployment on PostgreSQL. Every
 * `intervalMs` each instance publishes its counts of the current minute for the keys that changed
 * (rate_counts) and reads the other instances' counts of its busier keys, which its limiters add to their own.
 * Requests are never held up by it: a limiter decides from memory, at most one interval behind the deployment. A
 * store that cannot be reached leaves each instance counting alone until it is back.
 */
export class SharedRateLimits {
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;
  private lastPrune = 0;
  private failing = false;

  constructor(
    private readonly deps: {
      store: RateCountsStore;
      instanceId: string;
      limiters: Record<string, RateLimiter>;
      intervalMs: number;
      logger: Logger;
    },
  ) {
    for (const limiter of Object.values(deps.limiters)) limiter.shareCounts();
  }

  start(): void {
    this.timer = setInterval(() => {
      this.syncing ??= this.sync().finally(() => (this.syncing = undefined));
    }, this.deps.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.syncing;
  }

  /** One exchange with the other instances (exposed for tests that do not wait for the timer). */
  async sync(): Promise<void> {
    const { store, instanceId, limiters } = this.deps;
    try {
      for (const [name, limiter] of Object.entries(limiters)) {
        const { windowStart, counts } = limiter.takeChanges();
        await store.publish(instanceId, windowStart, name, counts);
        const keys = limiter.keysCountedAtLeast(Math.max(1, Math.floor(limiter.perMinute / lookupShare)));
        limiter.setOthers(windowStart, await store.othersTotals(instanceId, windowStart, name, keys));
        if (windowStart > this.lastPrune) {
          await store.prune(windowStart - 60_000);
          this.lastPrune = windowStart;
        }
      }
      if (this.failing) this.deps.logger.info('shared rate limits: back in step with the other instances');
      this.failing = false;
    } catch (error) {
      if (!this.failing) {
        this.deps.logger.warn(
          { err: (error as Error).message },
          'shared rate limits: store unreachable; each instance counts alone meanwhile',
        );
      }
      this.failing = true;
    }
  }
}
