import type { StoredMessage } from '../domain/messages/message-types.js';
import { MinHeap } from './min-heap.js';

/**
 * How long a message may be held for its thing's previous one: at most this long after it reached this instance,
 * and never past this long after that previous message was committed (by the origin's clock). A previous message
 * that has not come by then is taken as lost (its instance crashed between commit and relay publish, or the relay
 * is this late) and skipped. The relay's own lag is tens of milliseconds (p99 56 ms, docs/decisions.md): 2 s leaves
 * room for a loaded broker or a slow instance without letting a lost batch hold a thing's stream for long.
 */
export const storedOrderWaitMs = 2_000;

/**
 * How far a thing's seq may move from the one expected next and still be taken as its sequence (a gap to wait for,
 * or a duplicate to drop). Beyond it, the thing's order starts afresh at that message: a forged or corrupted seq of
 * 2^52 then costs one reordering instead of silencing the thing (every later genuine seq would be "behind" it).
 * Legitimate jumps are a few lost batches; a thing that really jumps this far gets a fresh start, the right outcome.
 */
export const maxSeqJump = 100_000;

export interface StoredOrderOptions {
  /** Where messages go once in order (one call per push or release, with what became deliverable). */
  deliver(messages: StoredMessage[]): void;
  waitMs?: number;
  /** Messages held across all things; beyond it the earliest deadline's thing is released (its gap skipped). */
  maxHeld?: number;
  /** A thing unheard for this long is forgotten (safe once it exceeds `waitMs`: see `forgetIdle`). */
  idleMs?: number;
  now?: () => number;
}

/** A held message: when it must go even if its predecessor never comes. */
interface Held {
  key: string;
  seq: number;
  message: StoredMessage;
  releaseAt: number;
}

interface ThingOrder {
  /** The seq delivered next; undefined until the thing's first delivery here (nothing known of what came before). */
  next: number | undefined;
  /** Held messages by seq. */
  held: Map<number, Held>;
  /** The seqs held, least first; may still list seqs delivered since (skipped when read: `lowestHeld`). */
  seqs: MinHeap<number>;
  lastActive: number;
}

/**
 * Puts each thing's live messages in stored order (`StoredMessage.seq`, assigned under the thing's row lock in the
 * ingest transaction, so it follows commit order) where this instance's and the relayed ones meet. A message whose
 * predecessor has not been delivered yet is held until it comes or until its release time (`storedOrderWaitMs`),
 * when the gap is skipped. A seq already delivered or held is dropped: a relay batch delivered twice (QoS 1), or a
 * predecessor that arrives after its gap was skipped. Messages without a seq (SQLite) pass through as they come.
 * A thing is its organization and TUID: two organizations may use one TUID, and their seqs are unrelated.
 *
 * Cost: O(log n) per message for n held. Each thing's held seqs are a heap (its lowest found without a scan), and
 * every held message's deadline is in one heap across things, which the timer and the memory bound read from the
 * top. Entries delivered before their deadline stay in that heap until they reach its top or it is compacted.
 *
 * Memory: a thing's state lives while it is active (`idleMs`), and at most `maxHeld` messages are held in all.
 */
export class StoredOrderBuffer {
  private readonly things = new Map<string, ThingOrder>();
  /** Every held message by release time (and some already delivered: see `isHeld`). */
  private readonly deadlines: MinHeap<Held>;
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
  /**
   * Counters for tests, logs and metrics: predecessors given up on (gaps), messages dropped as already delivered or
   * held, things whose order restarted on a seq too far off, and `steps`, the work done (heap levels moved and
   * held entries visited).
   */
  readonly counts = { skipped: 0, dropped: 0, restarted: 0, steps: 0 };

  constructor(private readonly options: StoredOrderOptions) {
    this.waitMs = options.waitMs ?? storedOrderWaitMs;
    this.maxHeld = options.maxHeld ?? 10_000;
    this.idleMs = options.idleMs ?? 30_000;
    this.now = options.now ?? Date.now;
    this.deadlines = new MinHeap((a, b) => a.releaseAt < b.releaseAt, this.counts);
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
    while (this.heldCount > this.maxHeld) this.releaseEarliest(out);
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
    this.deadlines.clear();
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
    for (const state of this.things.values()) if (state.held.size > 0) this.drain(state, Infinity, out);
    this.deadlines.clear();
    if (out.length > 0) this.options.deliver(out);
  }

  /**
   * Forgets things unheard for `idleMs`, holding nothing. Safe: the next message of such a thing either follows
   * one committed more than `waitMs` ago (released at once, as it would be with the state kept) or one committed
   * since, which this instance has not delivered yet and so rightly waits for.
   */
  forgetIdle(): void {
    const cutoff = this.now() - this.idleMs;
    for (const [key, state] of this.things) if (state.held.size === 0 && state.lastActive < cutoff) this.things.delete(key);
  }

  /** Releases what is due (the timer calls it; tests with their own clock too). */
  releaseDue(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    const out: StoredMessage[] = [];
    for (let top = this.liveTop(); top && top.releaseAt <= now; top = this.liveTop()) {
      this.deadlines.pop();
      // Delivers the thing's run if its lowest held message is due; one that is not has a deadline of its own.
      this.drain(this.things.get(top.key)!, now, out);
    }
    if (out.length > 0) this.options.deliver(out);
    this.armAt(this.liveTop()?.releaseAt ?? Infinity);
  }

  private accept(message: StoredMessage, seq: number, now: number, out: StoredMessage[]): void {
    const key = `${message.organizationId}\n${message.tuid}`;
    let state = this.things.get(key);
    if (!state) {
      state = { next: undefined, held: new Map(), seqs: new MinHeap((a, b) => a < b, this.counts), lastActive: now };
      this.things.set(key, state);
    }
    state.lastActive = now;
    // A thing deleted and heard of again numbers afresh from 1, with no predecessor: a new thing to this buffer
    // (else its messages would be dropped as long as it stays active). The price: a relay batch redelivered with
    // a thing's very first messages shows them twice.
    if (message.previousAt === null && state.next !== undefined && seq < state.next) state.next = undefined;
    if (state.next !== undefined && Math.abs(seq - state.next) > maxSeqJump) {
      // Too far off to be this thing's sequence: what it held goes out, and its order starts again here.
      this.drain(state, Infinity, out);
      this.counts.restarted += 1;
      state.next = seq;
    }
    if (state.next === seq) {
      // The common case, without a detour through the heaps.
      out.push(message);
      state.next = seq + 1;
      if (state.held.size > 0) this.drain(state, now, out);
      return;
    }
    if ((state.next !== undefined && seq < state.next) || state.held.has(seq)) {
      this.counts.dropped += 1;
      return;
    }
    // Released when its predecessor comes, or `waitMs` after that predecessor's commit (none, or committed before
    // anyone listened here: at once), and never later than `waitMs` from now.
    const previousAt = message.previousAt == null || message.previousAt < this.listeningSince ? -Infinity : message.previousAt;
    const held: Held = { key, seq, message, releaseAt: Math.min(now + this.waitMs, previousAt + this.waitMs) };
    state.held.set(seq, held);
    state.seqs.push(seq);
    this.heldCount += 1;
    this.drain(state, now, out);
    if (state.held.get(seq) === held) {
      this.deadlines.push(held);
      this.armAt(held.releaseAt);
      this.compactDeadlines();
    }
  }

  /** Delivers the thing's held run from its next seq, skipping to the lowest held one once that is due. */
  private drain(state: ThingOrder, now: number, out: StoredMessage[]): void {
    while (state.held.size > 0) {
      this.counts.steps += 1;
      let entry = state.next === undefined ? undefined : state.held.get(state.next);
      if (!entry) {
        const candidate = state.held.get(this.lowestHeld(state))!;
        if (candidate.releaseAt > now) break;
        // The predecessor is given up on (or, on a thing's first delivery here, was never to be delivered here).
        if (state.next !== undefined) this.counts.skipped += 1;
        state.next = candidate.seq;
        entry = candidate;
      }
      state.held.delete(entry.seq);
      this.heldCount -= 1;
      out.push(entry.message);
      state.next = entry.seq + 1;
    }
    if (state.held.size === 0) state.seqs.clear();
  }

  /** The thing's lowest held seq (it holds one), shedding the seqs delivered since they were pushed. */
  private lowestHeld(state: ThingOrder): number {
    for (;;) {
      const seq = state.seqs.peek()!;
      if (state.held.has(seq)) return seq;
      state.seqs.pop();
    }
  }

  /** The memory bound: the thing whose deadline comes first goes now, its gaps skipped. */
  private releaseEarliest(out: StoredMessage[]): void {
    const top = this.liveTop();
    if (!top) return;
    this.deadlines.pop();
    this.drain(this.things.get(top.key)!, Infinity, out);
  }

  /** The deadline heap's top once the entries delivered since they were pushed are shed. */
  private liveTop(): Held | undefined {
    for (let top = this.deadlines.peek(); top; top = this.deadlines.peek()) {
      if (this.isHeld(top)) return top;
      this.deadlines.pop();
    }
    return undefined;
  }

  private isHeld(entry: Held): boolean {
    return this.things.get(entry.key)?.held.get(entry.seq) === entry;
  }

  /** Delivered entries that never reached the top are shed once they outnumber the held ones (O(n), amortized). */
  private compactDeadlines(): void {
    if (this.deadlines.size <= 2 * this.heldCount + 1_024) return;
    this.counts.steps += this.deadlines.size;
    this.deadlines.retain((entry) => this.isHeld(entry));
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
