/**
 * When a failed webhook delivery is tried again (SPEC section 11, Delivery): WEBHOOK_RETRY_SCHEDULE has one entry per
 * attempt, the delay before it, with ±10 % jitter at most (so a fleet of deliveries failed together does not come
 * back together); a 429 or 503 with Retry-After waits that long instead, capped by the schedule's longest delay.
 * Pure: `random` is Math.random in the dispatcher, fixed in tests.
 */
export const retryJitter = 0.1;

/**
 * The delay in ms before the attempt after `attemptsMade` attempts, or undefined when the schedule is spent (the
 * delivery is failed).
 */
export function retryDelayMs(
  scheduleS: readonly number[],
  attemptsMade: number,
  retryAfterS: number | null,
  random: () => number = Math.random,
): number | undefined {
  if (attemptsMade >= scheduleS.length) return undefined;
  if (retryAfterS !== null) return Math.round(Math.min(retryAfterS, Math.max(...scheduleS)) * 1000);
  const jitter = 1 - retryJitter + random() * 2 * retryJitter;
  return Math.round(scheduleS[attemptsMade]! * 1000 * jitter);
}
