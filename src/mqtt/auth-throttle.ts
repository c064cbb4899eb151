/** Failed authentications allowed per username and per address within one window, and the window. */
export interface AuthThrottleLimits {
  perUsername: number;
  perAddress: number;
  windowMs: number;
}

// Distinct usernames and addresses remembered at once; past it the oldest is forgotten (its count restarts).
const maxKeys = 100_000;

/**
 * Throttles failed MQTT authentication, as sign-in is throttled: past `perUsername` failures for one username, or
 * `perAddress` from one address, within a window (counted from the first failure), further CONNECTs of that
 * username or address are refused for the rest of the window *without* a password check, so a client repeating
 * wrong passwords costs neither an argon2 verify each nor unbounded memory. A success clears its username's count.
 * Counts live in this instance's memory: the embedded broker is the only MQTT authenticator of its deployment
 * (with an external broker, the broker authenticates).
 */
export class AuthThrottle {
  private readonly failures: FailureWindow;

  constructor(
    private readonly limits: AuthThrottleLimits,
    now: () => number,
  ) {
    this.failures = new FailureWindow(limits.windowMs, now);
  }

  /** True while the username or the address has used up its failures for the window. */
  isBlocked(username: string, address: string): boolean {
    return this.failures.reached(`u:${username}`, this.limits.perUsername) || this.failures.reached(`a:${address}`, this.limits.perAddress);
  }

  recordFailure(username: string, address: string): void {
    this.failures.record(`u:${username}`);
    this.failures.record(`a:${address}`);
  }

  recordSuccess(username: string): void {
    this.failures.clear(`u:${username}`);
  }
}

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
}
