import { rateLimited } from '../domain/errors.js';

/** Keys one limiter counts within a minute at most; past it the oldest key is forgotten (its count restarts). */
export const maxRateLimitKeys = 100_000;

/**
 * Fixed one-minute windows, counted per key. Two limiters run side by side (per verified caller and per client
 * address), which @fastify/rate-limit cannot do in one registration: it keys each request to a single counter.
 * Keys are short and bounded (an address, a client id, a user id: never text a caller chose, such as an unverified
 * token), and so is their number: a window's map is dropped whole when the next minute starts, and within a minute
 * it holds at most `maxKeys`.
 */
export class RateLimiter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
    private readonly maxKeys = maxRateLimitKeys,
  ) {}

  get size(): number {
    return this.counts.size;
  }

  /** Counts one request for `key`; throws RATE_LIMITED (with the seconds until the window resets) past the limit. */
  hit(key: string): void {
    const now = this.now();
    if (now - this.windowStart >= 60_000) {
      this.windowStart = now - (now % 60_000);
      this.counts = new Map();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    if (count === 1 && this.counts.size >= this.maxKeys) this.counts.delete(this.counts.keys().next().value!);
    this.counts.set(key, count);
    if (count > this.perMinute) throw rateLimited(Math.max(1, Math.ceil((this.windowStart + 60_000 - now) / 1000)));
  }
}
