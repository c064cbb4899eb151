/**
 * Which instances the relay takes batches from: those live in the deployment's register (a heartbeat within
 * `silentAfterMs`, src/domain/deployment/instance-registry.ts), read from the store every few seconds. A signed
 * batch from an origin not known to be live waits for one more reading (an instance relays from its first commit,
 * a moment before its first heartbeat is written), at most `waitMs`; then it is refused. Only batches that carry a
 * valid signature get this far, so a stranger cannot make this instance read the store.
 */
export class RelayOrigins {
  private live = new Set<string>();
  private readAt = -Infinity;
  private reading: Promise<void> | undefined;
  private readonly waiting: { origin: string; since: number; accept: () => void }[] = [];
  private retry: NodeJS.Timeout | undefined;
  private readonly refresher: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly deps: {
      /** The ids of the instances live now. */
      liveInstanceIds: () => Promise<readonly string[]>;
      now?: () => number;
      onRefused: (origin: string) => void;
      onReadFailed: (error: unknown) => void;
      refreshMs?: number;
      waitMs?: number;
      maxWaiting?: number;
    },
  ) {
    this.refresher = setInterval(() => void this.read(), deps.refreshMs ?? 5_000);
    this.refresher.unref();
  }

  /** The first reading (the start waits for it, so the first batches need not). */
  async start(): Promise<void> {
    await this.read();
  }

  stop(): void {
    this.closed = true;
    clearInterval(this.refresher);
    clearTimeout(this.retry);
    this.waiting.length = 0;
  }

  /** Runs `accept` now if `origin` is live, later if it turns out to be, or never (`onRefused`). In arrival order per origin. */
  admit(origin: string, accept: () => void): void {
    if (this.live.has(origin) && !this.waiting.some((entry) => entry.origin === origin)) {
      accept();
      return;
    }
    if (this.waiting.length >= (this.deps.maxWaiting ?? 256)) {
      this.deps.onRefused(origin);
      return;
    }
    this.waiting.push({ origin, since: this.now(), accept });
    this.readSoon();
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Reads again at most once a second while batches wait. */
  private readSoon(): void {
    if (this.retry || this.closed) return;
    this.retry = setTimeout(
      () => {
        this.retry = undefined;
        void this.read();
      },
      Math.max(0, this.readAt + 1_000 - this.now()),
    );
    this.retry.unref();
  }

  private read(): Promise<void> {
    this.reading ??= this.deps
      .liveInstanceIds()
      .then((ids) => {
        this.live = new Set(ids);
      })
      .catch((error: unknown) => this.deps.onReadFailed(error))
      .finally(() => {
        this.readAt = this.now();
        this.reading = undefined;
        this.settle();
      });
    return this.reading;
  }

  private settle(): void {
    if (this.closed) return;
    const now = this.now();
    const waitMs = this.deps.waitMs ?? 5_000;
    const still = [];
    for (const entry of this.waiting.splice(0)) {
      if (this.live.has(entry.origin)) entry.accept();
      else if (now - entry.since >= waitMs) this.deps.onRefused(entry.origin);
      else still.push(entry);
    }
    this.waiting.push(...still);
    if (this.waiting.length > 0) this.readSoon();
  }
}
