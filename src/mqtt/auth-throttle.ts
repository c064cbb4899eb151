import { FailureWindow } from '../domain/auth/failure-window.js';

/** Failed authentications allowed per username and per address within one window, and the window. */
export interface AuthThrottleLimits {
  perUsername: number;
  perAddress: number;
  windowMs: number;
}

/**
 * Throttles failed MQTT authentication, as sign-in is throttled: past `perUsername` failures for one username, or
 * `perAddress` from one address, within a window (counted from the first failure), further CONNECTs of that
 * username or address are refused for the rest of the window *without* a password check, so a client repeating
 * wrong passwords costs neither an argon2 verify each nor unbounded memory. A success clears its username's count.
 * Counts live in this instance's memory: the embedded broker is the only MQTT authenticator of its deployment;
 * with MQTT_AUTH=http each instance answering the broker keeps its own (src/http/service/mqtt-auth-routes.ts), so
 * behind N instances a username gets at most N times its failures per window.
 */
export class AuthThrottle {
  private readonly failures: FailureWindow;

  constructor(
    private readonly limits: AuthThrottleLimits,
    now: () => number,
  ) {
    this.failures = new FailureWindow(limits.windowMs, now);
  }

  /**
   * True while the username or the address has used up its failures for the window. An unknown address (a broker
   * that does not say the device's) is counted by username only: the broker's own address is every device's.
   */
  isBlocked(username: string, address: string | undefined): boolean {
    return (
      this.failures.reached(`u:${username}`, this.limits.perUsername) ||
      (address !== undefined && this.failures.reached(`a:${address}`, this.limits.perAddress))
    );
  }

  recordFailure(username: string, address: string | undefined): void {
    this.failures.record(`u:${username}`);
    if (address !== undefined) this.failures.record(`a:${address}`);
  }

  recordSuccess(username: string): void {
    this.failures.clear(`u:${username}`);
  }
}
