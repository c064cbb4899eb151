// Distinct keys remembered at once; past it the oldest is forgotten (its count restarts).
const maxKeys = 100_000;

/**
 * Failures counted per key within a window that starts at the key's first failure. Bounded: past `maxKeys` keys the
 * oldest is forgotten (its count restarts).
 */
export class FailureWindow {
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** True while `key` has `limit` failures or more in its current window. */
  reached(key: string, limit: number): boolean {
    const entry = this.failures.get(key);
    if (!entry) return false;
    if (this.now() - entry.since >= this.windowMs) {
      this.failures.delete(key);
      return false;
    }
    return entry.count >= limit;
  }

  record(key: string): void {
    const now = this.now();
    const entry = this.failures.get(key);
    if (entry && now - entry.since < this.windowMs) {
      entry.count += 1;
      return;
    }
    this.failures.delete(key);
    if (this.failures.size >= maxKeys) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(key, { count: 1, since: now });
  }

  clear(key: string): void {
    this.failures.delete(key);
  }

  /** One failure counted too many (an attempt counted up front that succeeded) is taken back. */
  forgive(key: string): void {
    const entry = this.failures.get(key);
    if (!entry) return;
    entry.count -= 1;
    if (entry.count <= 0) this.failures.delete(key);
  }

  /** When `key`'s current window ends (0 for a key with none). */
  windowEndsAt(key: string): number {
    const entry = this.failures.get(key);
    return entry ? entry.since + this.windowMs : 0;
  }
}
