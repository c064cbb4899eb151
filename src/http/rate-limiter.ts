import { rateLimited } from '../domain/errors.js';

/** Keys one limiter counts within a minute at most; past it the oldest key is forgotten (its count restarts). */
export const maxRateLimitKeys = 100_000;

/**
 * Fixed one-minute windows (aligned to the clock, so every instance has the same ones), counted per key. Two
 * limiters run side by side (per verified caller and per client address), which @fastify/rate-limit cannot do in
 * one registration: it keys each request to a single counter. Keys are short and bounded (an address, a client
 * id, a user id: never text a caller chose, such as an unverified token), and so is their number: a window's map
 * is dropped whole when the next minute starts, and within a minute it holds at most `maxKeys`.
 *
 * With several instances, `shareCounts` makes the limit the deployment's: what this instance counted is taken
 * out with `takeChanges`, and what the other instances counted comes back through `setOthers`
 * (src/integration/shared-rate-limits.ts); a request is refused when both together pass the limit.
 */
export class RateLimiter {
  private windowStart = 0;
  private counts = new Map<string, number>();
  private others = new Map<string, number>();
  private changed: Set<string> | undefined;

  constructor(
    readonly perMinute: number,
    private readonly now: () => number,
    private readonly maxKeys = maxRateLimitKeys,
  ) {}

  get size(): number {
    return this.counts.size;
  }

  /** The start of the current window (ms). */
  get window(): number {
    this.roll(this.now());
    return this.windowStart;
  }

  /** Counts one request for `key`; throws RATE_LIMITED (with the seconds until the window resets) past the limit. */
  hit(key: string): void {
    const now = this.now();
    this.roll(now);
    const count = (this.counts.get(key) ?? 0) + 1;
    if (count === 1 && this.counts.size >= this.maxKeys) this.counts.delete(this.counts.keys().next().value!);
    this.counts.set(key, count);
    this.changed?.add(key);
    if (count + (this.others.get(key) ?? 0) > this.perMinute) {
      throw rateLimited(Math.max(1, Math.ceil((this.windowStart + 60_000 - now) / 1000)));
    }
  }

  /** From now on, remembers which keys changed, for `takeChanges`. */
  shareCounts(): void {
    this.changed ??= new Set();
  }

  /** This window's counts of the keys counted since the last call. */
  takeChanges(): { windowStart: number; counts: [key: string, count: number][] } {
    const windowStart = this.window;
    const counts: [string, number][] = [];
    for (const key of this.changed ?? []) {
      const count = this.counts.get(key);
      if (count !== undefined) counts.push([key, count]);
    }
    this.changed?.clear();
    return { windowStart, counts };
  }

  /** Keys counted at least `min` times in this window here: the ones the others' counts could push past the limit. */
  keysCountedAtLeast(min: number): string[] {
    const keys: string[] = [];
    for (const [key, count] of this.counts) if (count >= min) keys.push(key);
    return keys;
  }

  /** The other instances' counts for `windowStart`, ignored when that window has already ended here. */
  setOthers(windowStart: number, totals: Map<string, number>): void {
    if (windowStart === this.window) this.others = totals;
  }

  private roll(now: number): void {
    if (now - this.windowStart < 60_000) return;
    this.windowStart = now - (now % 60_000);
    this.counts = new Map();
    this.others = new Map();
    this.changed?.clear();
  }
}
