import type { LoginAttemptsStore } from '../../store/login-attempts-store.js';
import { rateLimited } from '../errors.js';

/** After this many failed sign-ins within the window, an account is blocked for the block time. */
export const loginThrottle = { maxFailures: 5, windowMs: 15 * 60_000, blockMs: 15 * 60_000 } as const;

/**
 * Throttles repeated failed sign-ins per account (organization name + e-mail, lower-cased), in the store so every
 * instance counts together. The key is what the caller typed, so an account that does not exist is throttled
 * exactly like one that does: the answer reveals nothing about existence.
 */
export class LoginThrottle {
  constructor(private readonly store: LoginAttemptsStore) {}

  static key(organizationName: string, email: string): string {
    // JSON keeps the pair unambiguous without a NUL separator, which PostgreSQL text refuses (login failed there).
    return JSON.stringify([organizationName.trim().toLowerCase(), email.trim().toLowerCase()]).slice(0, 600);
  }

  /** Throws RATE_LIMITED while the account is blocked. */
  async check(key: string, now: number): Promise<void> {
    const attempts = await this.store.get(key);
    if (attempts?.blockedUntil && attempts.blockedUntil > now) throw rateLimited(Math.ceil((attempts.blockedUntil - now) / 1000));
  }

  async recordFailure(key: string, now: number): Promise<void> {
    const previous = await this.store.get(key);
    const inWindow = previous && now - previous.firstFailureAt < loginThrottle.windowMs;
    const failures = inWindow ? previous.failures + 1 : 1;
    await this.store.save(key, {
      failures,
      firstFailureAt: inWindow ? previous.firstFailureAt : now,
      blockedUntil: failures >= loginThrottle.maxFailures ? now + loginThrottle.blockMs : null,
    });
  }

  async recordSuccess(key: string): Promise<void> {
    await this.store.clear(key);
  }
}
