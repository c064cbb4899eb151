import { rateLimited } from '../errors.js';
import { FailureWindow } from './failure-window.js';

/** Failed sign-ins allowed from one client address within a window (counted from its first), and the window. */
export interface AddressLoginLimits {
  failuresPerAddress: number;
  windowMs: number;
}

/**
 * Throttles failed sign-ins per client address, in memory, before anything costly: no store write, no argon2. The
 * per-account throttle (login-throttle.ts) cannot stop a flood that names a fresh e-mail each time; this one counts
 * every attempt of an address while its password is checked (so a burst of concurrent guesses is bounded too) and
 * keeps it when the check fails; a success gives its attempt back. Past `failuresPerAddress` in the window, the
 * address is refused (RATE_LIMITED, retry when its window ends) until the window ends. The counting is the
 * MQTT throttle's (`FailureWindow`), which also bounds how many addresses are remembered.
 *
 * Counts live in this instance's memory: with N instances an address gets N times the allowance, still a few
 * argon2 verifies a second at most, against unbounded before.
 */
export class AddressLoginThrottle {
  private readonly attempts: FailureWindow;

  constructor(
    private readonly limits: AddressLoginLimits,
    private readonly now: () => number,
  ) {
    this.attempts = new FailureWindow(limits.windowMs, now);
  }

  /** Takes one attempt for the address; RATE_LIMITED when its failures (and attempts in flight) reached the limit. */
  claim(address: string): void {
    if (this.attempts.reached(address, this.limits.failuresPerAddress))
      throw rateLimited(Math.max(1, Math.ceil((this.attempts.windowEndsAt(address) - this.now()) / 1000)));
    this.attempts.record(address);
  }

  /** The claimed attempt succeeded: it does not count against the address (a NAT of people signing in is not a flood). */
  release(address: string): void {
    this.attempts.forgive(address);
  }
}
