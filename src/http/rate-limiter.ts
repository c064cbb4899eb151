import { rateLimited } from '../domain/errors.js';

/**
 * Fixed one-minute windows, counted per key. Two limiters run side by side (per token and per client address),
 * which @fastify/rate-limit cannot do in one registration: it keys each request to a single counter.
 * Memory is bounded: a window's map is dropped whole when the next minute starts.
 */
export class RateLimiter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {}

  /** Counts one request for `key`; throws RATE_LIMITED (with the seconds until the window resets) past the limit. */
  hit(key: string): void {
    const now = this.now();
    if (now - this.windowStart >= 60_000) {
      this.windowStart = now - (now % 60_000);
      this.counts = new Map();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    if (count > this.perMinute) throw rateLimited(Math.max(1, Math.ceil((this.windowStart + 60_000 - now) / 1000)));
  }
}
