/** The platform's sense of time, injected so that expiry and alert rules are testable. Milliseconds since epoch. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}

/** Milliseconds on the platform's clock to the whole Unix seconds every interface shows. */
export function toUnixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}
