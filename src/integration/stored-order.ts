import type { StoredMessage } from '../domain/messages/message-types.js';

/**
 * How long a message may be held for its thing's previous one: at most this long after it reached this instance,
 * and never past this long after that previous message was committed (by the origin's clock). A previous message
 * that has not come by then is taken as lost (its instance crashed between commit and relay publish, or the relay
 * is this late) and skipped. The relay's own lag is tens of milliseconds (p99 56 ms, docs/decisions.md): 2 s leaves
 * room for a loaded broker or a slow instance without letting a lost batch hold a thing's stream for long.
 */
export const storedOrderWaitMs = 2_000;

export interface StoredOrderOptions {
  /** Where messages go once in order (one call per push or release, with what became deliverable). */
  deliver(messages: StoredMessage[]): void;
  waitMs?: number;
  /** Messages held across all things; beyond it the longest-waiting thing is released (its gap skipped). */
  maxHeld?: number;
  /** A thing unheard for this long is forgotten (safe once it exceeds `waitMs`: see `forgetIdle`). */
  idleMs?: number;
  now?: () => number;
}

interface ThingOrder {
  /** The seq delivered next; undefined until the thing's first delivery here (nothing known of what came before). */
  next: number | undefined;
  /** Held messages by seq, each with when it must go even if its predecessor never comes. */
  held: Map<number, { message: StoredMessage; releaseAt: number }>;
  lastActive: number;
}

/**
 * Puts each thing's live messages in stored order (`StoredMessage.seq`, assigned under the thing's row lock in the
 * ingest transaction, so it follows commit order) where this instance's and the relayed ones meet. A message whose
 * predecessor has not been delivered yet is held until it comes or until its release time (`storedOrderWaitMs`),
 * when the gap is skipped. A seq already delivered or held is dropped: a relay batch delivered twice (QoS 1), or a
 * predecessor that arrives after its gap was skipped. Messages without a seq (SQLite) pass through as they come.
 *
 * Memory: a thing's state lives while it is active (`idleMs`), and at most `maxHeld` messages are held in all.
 */
export class StoredOrderBuffer {
  private readonly things = new Map<string, ThingOrder>();
  /** Things holding something: the only ones a release scan must look at. */
  private readonly waiting = new Set<string>();
  private heldCount = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private readonly sweeper: NodeJS.Timeout;
  private readonly waitMs: number;
  private readonly maxHeld: number;
  private readonly idleMs: number;
  private readonly now: () => number;
  /** Since when someone has been listening (see `listening`); Infinity: nobody yet. */
  private listeningSince = Infinity;
  /** Counters for tests and logs: predecessors given up on, and messages dropped as already delivered or held. */
  readonly counts = { skipped: 0, dropped: 0 };

  constructor(private readonly options: StoredOrderOptions) {
    this.waitMs = options.waitMs ?? storedOrderWaitMs;
    this.maxHeld = options.maxHeld ?? 10_000;
    this.idleMs = options.idleMs ?? 30_000;
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => this.forgetIdle(), this.idleMs);
    this.sweeper.unref();
  }

  /** A batch as emitted (local) or relayed: what is in order goes out at once, in one call. */
  push(messages: readonly StoredMessage[]): void {
    const out: StoredMessage[] = [];
    const now = this.now();
    if (this.listeningSince === Infinity) this.listeningSince = now;
    for (const message of messages) {
      if (message.seq === undefined) out.push(message);
      else this.accept(message, message.seq, now, out);
    }
    while (this.heldCount > this.maxHeld) this.releaseOldest(now, out);
    if (out.length > 0) this.options.deliver(out);
  }

  /**
   * Whether anyone listens here. While nobody does, the relay reads no batch, so what this buffer would know goes
   * stale: it forgets everything (held messages too: nobody would hear them). Once someone listens again, no
   * message waits for one committed before that moment: it was never going to be delivered to them.
   */
  listening(yes: boolean): void {
    if (yes) {
      if (this.listeningSince === Infinity) this.listeningSince = this.now();
      return;
    }
    this.listeningSince = Infinity;
    this.things.clear();
    this.waiting.clear();
    this.heldCount = 0;
  }

  /** Things with state, and messages held (tests, and the memory bound). */
  get size(): { things: number; held: number } {
    return { things: this.things.size, held: this.heldCount };
  }

  /** Delivers everything held, in order per thing, and stops the timers. */
  close(): void {
    clearInterval(this.sweeper);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const out: StoredMessage[] = [];
    for (const tuid of this.waiting) this.drain(tuid, this.things.get(tuid)!, Infinity, out);
    if (out.length > 0) this.options.deliver(out);
  }

  /**
   * Forgets things unheard for `idleMs`, holding nothing. Safe: the next message of such a thing either follows
   * one committed more than `waitMs` ago (released at once, as it would be with the state kept) or one committed
   * since, which this instance has not delivered yet and so rightly waits for.
   */
  forgetIdle(): void {
    const cutoff = this.now() - this.idleMs;
    for (const [tuid, state] of this.things) if (state.held.size === 0 && state.lastActive < cutoff) this.things.delete(tuid);
  }

  private accept(message: StoredMessage, seq: number, now: number, out: StoredMessage[]): void {
    let state = this.things.get(message.tuid);
    if (!state) {
      state = { next: undefined, held: new Map(), lastActive: now };
      this.things.set(message.tuid, state);
    }
    state.lastActive = now;
    // A thing deleted and heard of again numbers afresh from 1, with no predecessor: a new thing to this buffer
    // (else its messages would be dropped as long as it stays active). The price: a relay batch redelivered with
    // a thing's very first messages shows them twice.
    if (message.previousAt === null && state.next !== undefined && seq < state.next) state.next = undefined;
    if (state.next === seq) {
      // The common case, without a detour through the map.
      out.push(message);
      state.next = seq + 1;
      if (state.held.size > 0) this.drain(message.tuid, state, now, out);
      return;
    }
    if ((state.next !== undefined && seq < state.next) || state.held.has(seq)) {
      this.counts.dropped += 1;
      return;
    }
    // Released when its predecessor comes, or `waitMs` after that predecessor's commit (none, or committed before
    // anyone listened here: at once), and never later than `waitMs` from now.
    const previousAt = message.previousAt == null || message.previousAt < this.listeningSince ? -Infinity : message.previousAt;
    const releaseAt = Math.min(now + this.waitMs, previousAt + this.waitMs);
    state.held.set(seq, { message, releaseAt });
    this.heldCount += 1;
    this.waiting.add(message.tuid);
    this.drain(message.tuid, state, now, out);
    if (state.held.has(seq)) this.armAt(releaseAt);
  }

  /** Delivers the thing's held run from its next seq, skipping to the lowest held one once that is due. */
  private drain(tuid: string, state: ThingOrder, now: number, out: StoredMessage[]): void {
    while (state.held.size > 0) {
      let entry = state.next === undefined ? undefined : state.held.get(state.next);
      if (!entry) {
        const lowest = Math.min(...state.held.keys());
        const candidate = state.held.get(lowest)!;
        if (candidate.releaseAt > now) break;
        // The predecessor is given up on (or, on a thing's first delivery here, was never to be delivered here).
        if (state.next !== undefined) this.counts.skipped += 1;
        state.next = lowest;
        entry = candidate;
      }
      state.held.delete(state.next!);
      this.heldCount -= 1;
      out.push(entry.message);
      state.next! += 1;
    }
    if (state.held.size === 0) this.waiting.delete(tuid);
  }

  private releaseOldest(now: number, out: StoredMessage[]): void {
    let oldest: string | undefined;
    let oldestAt = Infinity;
    for (const tuid of this.waiting) {
      const at = Math.min(...[...this.things.get(tuid)!.held.values()].map((h) => h.releaseAt));
      if (at < oldestAt) [oldest, oldestAt] = [tuid, at];
    }
    if (oldest === undefined) return;
    const state = this.things.get(oldest)!;
    for (const entry of state.held.values()) entry.releaseAt = -Infinity;
    this.drain(oldest, state, now, out);
  }

  /** Releases what is due (the timer calls it; tests with their own clock too). */
  releaseDue(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    const out: StoredMessage[] = [];
    let earliest = Infinity;
    for (const tuid of [...this.waiting]) {
      const state = this.things.get(tuid)!;
      this.drain(tuid, state, now, out);
      for (const entry of state.held.values()) earliest = Math.min(earliest, entry.releaseAt);
    }
    if (out.length > 0) this.options.deliver(out);
    this.armAt(earliest);
  }

  /** One timer, for the earliest release; a later one is found when it fires. */
  private armAt(at: number): void {
    if (at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.releaseDue(), Math.max(0, at - this.now()));
    this.timer.unref();
  }
}
