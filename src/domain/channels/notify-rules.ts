/**
 * Noise control (SPEC section 13), pure: what a (rule, thing) change and a (channel, rule) opening do given what
 * was notified before. The store keeps the states (notify_states, notify_digests) and applies the decisions in the
 * alert change's transaction.
 */

export type NotifiedState = 'open' | 'closed';

/** Per (rule, thing): the state the recipients last heard (or will hear when the deferred deliveries go out). */
export interface IntervalState {
  lastState: NotifiedState;
  /** When that was sent, or when the deferred deliveries are due. */
  lastAt: number;
  /** Deliveries written to carry the latest state when the interval ends; null: none waiting. */
  deferredIds: string[] | null;
  /** The state heard before the deferred deliveries. */
  deferredBase: NotifiedState | null;
}

export type IntervalDecision =
  /** Send now; the new state. */
  | { action: 'send'; next: IntervalState }
  /** Nothing to send (the recipients' last state is this one). */
  | { action: 'none'; next: IntervalState | undefined }
  /** Write deliveries due at `dueAt` carrying this state (their ids go into `next.deferredIds` once written). */
  | { action: 'defer'; dueAt: number; next: IntervalState }
  /** Replace the content of the waiting deferred deliveries with this state's message. */
  | { action: 'rewrite'; next: IntervalState }
  /** The waiting deferred deliveries are dropped: the state went back to what the recipients heard. */
  | { action: 'drop'; ids: string[]; next: IntervalState };

/**
 * NOTIFY_MIN_INTERVAL_S per (rule, thing): the first change is sent at once; later changes within the interval
 * wait for its end, when the current state is sent if it differs from the last one sent.
 */
export function decideInterval(
  current: IntervalState | undefined,
  state: NotifiedState,
  now: number,
  intervalMs: number,
): IntervalDecision {
  if (current?.deferredIds && now < current.lastAt) {
    if (state === current.deferredBase)
      return {
        action: 'drop',
        ids: current.deferredIds,
        next: { lastState: state, lastAt: current.lastAt - intervalMs, deferredIds: null, deferredBase: null },
      };
    return { action: 'rewrite', next: { ...current, lastState: state } };
  }
  const settled = current && { ...current, deferredIds: null, deferredBase: null };
  if (!settled || now - settled.lastAt >= intervalMs)
    return { action: 'send', next: { lastState: state, lastAt: now, deferredIds: null, deferredBase: null } };
  if (state === settled.lastState) return { action: 'none', next: settled };
  const dueAt = settled.lastAt + intervalMs;
  return { action: 'defer', dueAt, next: { lastState: state, lastAt: dueAt, deferredIds: [], deferredBase: settled.lastState } };
}

/** Per (channel, rule): the current window, how many openings went singly in it, and its digest delivery. */
export interface DigestState {
  windowStart: number;
  singleCount: number;
  digestId: string | null;
}

export type DigestDecision =
  | { action: 'single'; next: DigestState }
  /** Into the window's digest (a new one due at `dueAt` when `digestId` is null). */
  | { action: 'digest'; dueAt: number; next: DigestState };

/** NOTIFY_DIGEST_THRESHOLD per rule and channel: at most that many openings singly in a window, the rest in one digest. */
export function decideDigest(current: DigestState | undefined, now: number, threshold: number, windowMs: number): DigestDecision {
  if (!current || now >= current.windowStart + windowMs)
    return { action: 'single', next: { windowStart: now, singleCount: 1, digestId: null } };
  if (current.singleCount < threshold) return { action: 'single', next: { ...current, singleCount: current.singleCount + 1 } };
  return { action: 'digest', dueAt: current.windowStart + windowMs, next: current };
}
