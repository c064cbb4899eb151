/**
 * Already-verified tokens, keyed by the token text, each kept until its own expiry. Verifying an EdDSA signature
 * costs ~150 µs; a map lookup costs nothing, and clients reuse a token for many calls. Bounded: when full, the
 * oldest entries go first (Map iteration order is insertion order).
 */
export class TokenCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAtMs: number }>();

  constructor(private readonly capacity = 50_000) {}

  get(token: string, nowMs: number): T | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.expiresAtMs <= nowMs) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.value;
  }

  set(token: string, value: T, expiresAtMs: number): void {
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(token, { value, expiresAtMs });
  }

  /** Forgets every token whose value matches, e.g. all tokens of a revoked client. */
  deleteWhere(matches: (value: T) => boolean): void {
    for (const [token, entry] of this.entries) if (matches(entry.value)) this.entries.delete(token);
  }
}
