import { createHash } from 'node:crypto';
import type { Store } from '../../store/store.js';
import { rateLimited } from '../errors.js';

/** After this many failed sign-ins within the window, an account is blocked for the block time. */
export const loginThrottle = { maxFailures: 5, windowMs: 15 * 60_000, blockMs: 15 * 60_000 } as const;

// Rows whose window and block have passed are removed at most this often per instance, on a sign-in's write.
const pruneIntervalMs = 60_000;

/**
 * Throttles repeated failed sign-ins per account (organization name + e-mail, lower-cased), in the store so every
 * instance counts together. The key is what the caller typed, so an account that does not exist is throttled
 * exactly like one that does: the answer reveals nothing about existence. An attempt is counted before its password
 * is checked, in one atomic statement, so that however many guesses arrive at once, at most `maxFailures` of them
 * per window reach the (costly) password check.
 *
 * The table stays small: keys are a SHA-256 of the pair (64 characters whatever was typed), and rows that count for
 * nothing any more (window and block passed) are removed on a sign-in's write, at most once a minute.
 */
export class LoginThrottle {
  private lastPruneAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly store: Store['loginAttempts']) {}

  static key(organizationName: string, email: string): string {
    // JSON keeps the pair unambiguous (no separator another pair could contain); hashed to a fixed length.
    const pair = JSON.stringify([organizationName.trim().toLowerCase(), email.trim().toLowerCase()]);
    return createHash('sha256').update(pair).digest('hex');
  }

  /**
   * Takes one attempt for the account and returns its number in the window. Throws RATE_LIMITED while the account
   * is blocked, or when this attempt is past the limit (concurrent guesses whose predecessors are still checked).
   */
  async claim(key: string, now: number): Promise<number> {
    await this.pruneNow(now);
    const attempts = await this.store.claim(key, now, loginThrottle.windowMs);
    if (attempts.blockedUntil !== null) throw rateLimited(Math.ceil((attempts.blockedUntil - now) / 1000));
    if (attempts.failures > loginThrottle.maxFailures) throw rateLimited(Math.ceil(loginThrottle.blockMs / 1000));
    return attempts.failures;
  }

  /** The claimed attempt failed: the one that uses up the window's attempts blocks the account. */
  async recordFailure(key: string, now: number, attempt: number): Promise<void> {
    if (attempt >= loginThrottle.maxFailures) await this.store.block(key, now + loginThrottle.blockMs);
  }

  async recordSuccess(key: string): Promise<void> {
    await this.store.clear(key);
  }

  private async pruneNow(now: number): Promise<void> {
    if (now - this.lastPruneAt < pruneIntervalMs) return;
    this.lastPruneAt = now;
    await this.store.prune(now, loginThrottle.windowMs);
  }
}
