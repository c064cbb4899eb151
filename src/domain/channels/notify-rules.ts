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

/**
 * Per (channel, rule): the messages sent in the last window (singles, and digests once due) and the digest collecting
 * openings. Bounded whatever the threshold: send times are kept rounded up to a 60th of the window, as
 * [rounded time, count] pairs, none older than the window (at most 62 pairs).
 */
export interface DigestState {
  /** [send time rounded up to a 60th of the window, messages sent in that 60th], oldest first. */
  recentSends: [number, number][];
  /** The pending digest delivery (null until the writer has written it). */
  digestId: string | null;
  /** When the pending digest is sent; null: no digest pending. */
  digestDueAt: number | null;
}

export type DigestDecision =
  | { action: 'single'; next: DigestState }
  /** Into the pending digest, due at `dueAt` (a new one when `next.digestId` is null). */
  | { action: 'digest'; dueAt: number; next: DigestState };

/** The resolution send times are kept at: a 60th of the window (1 s of a minute), at least 1 ms. */
export const digestStepMs = (windowMs: number) => Math.max(1, Math.floor(windowMs / 60));

/** `sends` with one more message sent at `at`, rounded up to its step (it counts a little longer, never shorter). */
function withSend(sends: [number, number][], at: number, stepMs: number): [number, number][] {
  const end = Math.ceil(at / stepMs) * stepMs;
  const last = sends.at(-1);
  if (last && last[0] === end) return [...sends.slice(0, -1), [end, last[1] + 1]];
  return [...sends, [end, 1]];
}

/**
 * NOTIFY_DIGEST_THRESHOLD per rule and channel, in a sliding window of NOTIFY_DIGEST_WINDOW_S: an opening goes singly
 * when fewer than the threshold messages were sent in the last window (a message sent at t counts until t + window,
 * t rounded up to a 60th of the window); otherwise it starts a digest due one window later, which the openings until
 * then join. The digest counts as one message from when it is due. So no window of that length holds more than the
 * threshold of messages, and a burst gives the threshold of singles and one digest per window.
 */
export function decideDigest(current: DigestState | undefined, now: number, threshold: number, windowMs: number): DigestDecision {
  const stepMs = digestStepMs(windowMs);
  const pending = current?.digestDueAt ?? null;
  if (pending !== null && now < pending) return { action: 'digest', dueAt: pending, next: current! };
  // A digest that came due went out then: it is one of the messages of the window.
  let sends = current?.recentSends ?? [];
  if (pending !== null) sends = withSend(sends, pending, stepMs);
  const recent = sends.filter(([end]) => end > now - windowMs);
  const count = recent.reduce((sum, [, n]) => sum + n, 0);
  if (count < threshold)
    return { action: 'single', next: { recentSends: withSend(recent, now, stepMs), digestId: null, digestDueAt: null } };
  const dueAt = now + windowMs;
  return { action: 'digest', dueAt, next: { recentSends: recent, digestId: null, digestDueAt: dueAt } };
}
