import type { DeadLetterRecord, IngestBatchResult, UplinkRecord } from '../domain/messages/message-types.js';
import type { CommitIngestBatch } from '../store/batch-writer/batch-writer.js';
import { isTemporaryStoreFailure } from '../store/store-unavailable.js';

export interface BatcherOptions {
  /** Most records (messages + dead letters) one transaction writes; a single larger payload is written alone. */
  maxBatch: number;
  /**
   * Most JSON text one transaction carries (bytes, roughly): with large messages, the batch is cut by size before
   * count, so the SQLite writer thread's heap holds any batch. Default 16 MiB.
   */
  maxBatchBytes?: number;
  /** Transactions in flight at once: 1 for SQLite (one writer), a few for PostgreSQL. */
  maxConcurrent: number;
  /**
   * Records queued (not yet in a transaction) beyond which `room()` makes callers wait. Bounds the parsed uplinks
   * the process holds when publishers outrun the store; a waiting publish is acknowledged later, which slows its
   * publisher. Default: unbounded.
   */
  maxQueued?: number;
}

interface Pending {
  records: readonly UplinkRecord[];
  deadLetters: readonly DeadLetterRecord[];
  /** Length of the JSON texts it carries. */
  bytes: number;
  /** What is stored instead when this payload alone fails to be written for a reason other than an outage. */
  poisoned?: (error: unknown) => DeadLetterRecord;
  queuedAt: number;
  resolve(): void;
  reject(error: unknown): void;
}

export interface BatchCommitted {
  result: IngestBatchResult;
  /** Records in the batch. */
  size: number;
  /** Time spent in the transaction. */
  commitMs: number;
  /** Longest wait of a payload in this batch, from submit to commit. */
  maxLatencyMs: number;
}

/**
 * Group commit for uplinks. Payloads queue while the writer is busy and go out together in the next transaction,
 * so batches grow with load (bounded by `maxBatch`) and an idle platform writes at once: latency is at most one
 * running transaction plus one's own. A payload's promise resolves only after its transaction committed, which is
 * when the broker may acknowledge it.
 *
 * A transaction that fails for a temporary reason (the store unreachable, a lock held too long, a full disk) rejects
 * every payload in it (none is acknowledged; gateways send them again). One that fails for another reason is a
 * payload the store refuses (a poison uplink):
 * the payloads are then written one by one, and one that fails alone is stored as a dead letter with the reason,
 * so it is acknowledged once and never retried forever, and the rest commit as usual.
 */
export class UplinkBatcher {
  private readonly queue: Pending[] = [];
  private queuedRecords = 0;
  private running = 0;
  private scheduled = false;
  /** Callers of `room()` waiting for the queue to shrink, first come first served. */
  private readonly waiting: (() => void)[] = [];
  /** Moving average of records per payload: how many waiters the room freed by a transaction admits. */
  private recordsPerPayload = 1;

  constructor(
    private readonly commit: CommitIngestBatch,
    private readonly options: BatcherOptions,
    private readonly onCommitted: (batch: BatchCommitted) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Resolves when the queue has room for another payload (`maxQueued`). Call it before parsing a payload, so a
   * waiting publish costs its raw bytes only, not its parsed messages.
   */
  room(): Promise<void> {
    if (this.waiting.length === 0 && this.queuedRecords < (this.options.maxQueued ?? Infinity)) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Queues one payload's records; resolves once they (or, should they fail alone, `poisoned`'s dead letter) are committed. */
  submit(
    records: readonly UplinkRecord[],
    deadLetters: readonly DeadLetterRecord[],
    poisoned?: (error: unknown) => DeadLetterRecord,
  ): Promise<void> {
    const size = records.length + deadLetters.length;
    this.queuedRecords += size;
    this.recordsPerPayload = 0.9 * this.recordsPerPayload + 0.1 * Math.max(1, size);
    return new Promise<void>((resolve, reject) => {
      const bytes = records.reduce((sum, r) => sum + r.body.length, 0) + deadLetters.reduce((sum, d) => sum + d.payload.length, 0);
      this.queue.push({ records, deadLetters, bytes, poisoned, queuedAt: this.now(), resolve, reject });
      this.schedule();
    });
  }

  /** Resolves when nothing is queued, waiting or being written (used at shutdown). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.running > 0 || this.waiting.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  /**
   * Lets in as many waiters as the queue has room for, by the average payload size: they parse and submit later
   * (after their await), so admitting until the count is reached would admit them all.
   */
  private admitWaiting(): void {
    let room = (this.options.maxQueued ?? Infinity) - this.queuedRecords;
    while (room > 0 && this.waiting.length > 0) {
      this.waiting.shift()!();
      room -= this.recordsPerPayload;
    }
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.options.maxConcurrent) return;
    this.scheduled = true;
    // setImmediate lets the event loop finish reading every socket that is ready, so one transaction takes them all.
    setImmediate(() => {
      this.scheduled = false;
      while (this.queue.length > 0 && this.running < this.options.maxConcurrent) void this.writeNext();
    });
  }

  private async writeNext(): Promise<void> {
    const batch: Pending[] = [];
    let size = 0;
    let bytes = 0;
    const maxBytes = this.options.maxBatchBytes ?? 16 * 1024 * 1024;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      const nextSize = next.records.length + next.deadLetters.length;
      if (batch.length > 0 && (size + nextSize > this.options.maxBatch || bytes + next.bytes > maxBytes)) break;
      batch.push(this.queue.shift()!);
      size += nextSize;
      bytes += next.bytes;
    }
    this.queuedRecords -= size;
    this.admitWaiting();
    this.running += 1;
    try {
      await this.write(
        batch,
        batch.flatMap((p) => p.records),
        batch.flatMap((p) => p.deadLetters),
      );
    } catch (error) {
      if (isTemporaryStoreFailure(error)) for (const pending of batch) pending.reject(error);
      else await this.isolate(batch, error);
    } finally {
      this.running -= 1;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async write(
    batch: readonly Pending[],
    records: readonly UplinkRecord[],
    deadLetters: readonly DeadLetterRecord[],
  ): Promise<void> {
    const started = this.now();
    const result = await this.commit(records, deadLetters);
    const finished = this.now();
    const size = records.length + deadLetters.length;
    this.onCommitted({ result, size, commitMs: finished - started, maxLatencyMs: finished - Math.min(...batch.map((p) => p.queuedAt)) });
    for (const pending of batch) pending.resolve();
  }

  /** Writes a failed batch's payloads one by one; one that fails alone becomes its dead letter. */
  private async isolate(batch: readonly Pending[], batchError: unknown): Promise<void> {
    for (const pending of batch) {
      let error = batchError;
      if (batch.length > 1) {
        try {
          await this.write([pending], pending.records, pending.deadLetters);
          continue;
        } catch (thrown) {
          error = thrown;
        }
      }
      if (isTemporaryStoreFailure(error) || !pending.poisoned) {
        pending.reject(error);
        continue;
      }
      await this.write([pending], [], [pending.poisoned(error)]).catch((thrown: unknown) => pending.reject(thrown));
    }
  }
}
