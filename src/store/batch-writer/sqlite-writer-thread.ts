import type { Worker } from 'node:worker_threads';
import type { DeadLetterRecord } from '../../domain/messages/message-types.js';
import type { SqliteExpiryJob } from '../retention/sqlite-expiry.js';
import { SqliteCheckpointer } from '../sqlite-checkpointer.js';
import { startStoreWorker } from '../start-store-worker.js';
import { transferablesOf, type WireBatch, type WireResult } from './sqlite-batch-transaction.js';
import type { WriterRequest, WriterResponse, WriterStart, WriterStatement } from './sqlite-writer-protocol.js';

// The thread holds at most a couple of batches, each at most 16 MiB of JSON (uplink-batcher.ts) from payloads of at
// most UPLINK_MAX_MESSAGES messages: a small heap holds them and keeps its share of the RSS budget small.
const writerLimits = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 };

/**
 * The main thread's side of the uplink writer thread. better-sqlite3 is synchronous: a batch written on the
 * event loop stops the broker and the parsing for as long as the transaction runs, leaving the second core idle.
 * In a worker the transaction runs beside them, on its own connection (WAL: SQLite's file lock serializes it
 * with the main connection's writes, busy_timeout makes either wait for the other).
 *
 * Batches are answered in order, each after its COMMIT. A batch that fails is rejected (its publishes are not
 * acknowledged and come again); if the thread itself dies, every batch it held is rejected and the next batch
 * starts a new thread.
 */
export class SqliteWriterThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve(result: never): void; reject(error: Error): void }>();
  private nextId = 0;
  private closing: Promise<void> | undefined;
  // The writer commits; the checkpointer keeps the log short, so the writer checkpoints only as its fallback.
  private readonly checkpointer: SqliteCheckpointer;

  constructor(private readonly path: string) {
    // Started at once, so the first batch does not wait for the thread to load and open the store.
    this.worker = this.spawn();
    this.checkpointer = new SqliteCheckpointer(path);
  }

  /** Writes one batch in the thread; resolves after its commit. */
  run(batch: WireBatch, deadLetters: readonly DeadLetterRecord[]): Promise<WireResult> {
    if (this.closing) return Promise.reject(new Error('the uplink writer is closed'));
    const worker = (this.worker ??= this.spawn());
    const id = ++this.nextId;
    return new Promise<WireResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ type: 'batch', id, batch, deadLetters } satisfies WriterRequest, transferablesOf(batch));
    });
  }

  /**
   * Runs one step of the retention sweep in the thread, after the batches already sent and before the next ones:
   * ingest waits for at most one step. Resolves with the rows (or pages) it removed.
   */
  expire(job: SqliteExpiryJob): Promise<number> {
    if (this.closing) return Promise.reject(new Error('the uplink writer is closed'));
    const worker = (this.worker ??= this.spawn());
    const id = ++this.nextId;
    return new Promise<number>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ type: 'expire', id, job } satisfies WriterRequest);
    });
  }

  /**
   * Runs small writes of other modules in one transaction in the thread, between batches: on the main connection
   * each would hold the event loop while it waits for the writer's lock (busy_timeout). Resolves with each
   * statement's rows.
   */
  statements(statements: readonly WriterStatement[]): Promise<unknown[][]> {
    if (this.closing) return Promise.reject(new Error('the uplink writer is closed'));
    const worker = (this.worker ??= this.spawn());
    const id = ++this.nextId;
    return new Promise<unknown[][]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ type: 'statements', id, statements } satisfies WriterRequest);
    });
  }

  /** Lets the batches already sent finish, then closes the thread's connection and ends it. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      while (this.pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await this.checkpointer.close();
      const worker = this.worker;
      this.worker = undefined;
      if (!worker) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage({ type: 'close' } satisfies WriterRequest);
      await exited;
    })();
    return this.closing;
  }

  private spawn(): Worker {
    const worker = startStoreWorker(
      new URL('./sqlite-writer-worker', import.meta.url),
      { path: this.path } satisfies WriterStart,
      writerLimits,
    );
    worker.on('message', (response: WriterResponse) => {
      const waiting = this.pending.get(response.id);
      if (!waiting) return;
      this.pending.delete(response.id);
      if (response.type === 'done') waiting.resolve(response.result as never);
      else if (response.type === 'expired') waiting.resolve(response.removed as never);
      else if (response.type === 'ran') waiting.resolve(response.rows as never);
      else waiting.reject(Object.assign(new Error(`uplink batch failed: ${response.message}`), { code: response.code }));
    });
    worker.on('error', (error) => this.lost(worker, error));
    worker.on('exit', (code) => this.lost(worker, new Error(`the uplink writer thread exited with code ${code}`)));
    return worker;
  }

  /** The thread died: what it held is not committed (or not known to be), so its batches are rejected. */
  private lost(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    void worker.terminate();
  }
}
