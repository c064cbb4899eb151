import { Worker } from 'node:worker_threads';
import type { DeadLetterRecord } from '../../domain/messages/message-types.js';
import type { SqliteExpiryJob } from '../retention/sqlite-expiry.js';
import { transferablesOf, type WireBatch, type WireResult } from './sqlite-batch-transaction.js';
import type { WriterRequest, WriterResponse, WriterStart } from './sqlite-writer-protocol.js';

/**
 * Starts the worker file next to this one: compiled, dist/store/ingest/sqlite-writer-worker.js. Under tsx (tests,
 * `npm run dev`) this module is a .ts file, and tsx 4 does not register its loader in worker threads on Node 20
 * (the worker inherits `--import tsx`, yet fails on the .ts entry), so the worker starts from a two-line script
 * that registers tsx and then imports the .ts source.
 */
function startWorker(workerData: WriterStart): Worker {
  // The thread holds at most a couple of batches, each at most 16 MiB of JSON (uplink-batcher.ts) from payloads of
  // at most UPLINK_MAX_MESSAGES messages: a small heap holds them and keeps its share of the RSS budget small.
  const resourceLimits = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 };
  const self = import.meta.url;
  if (!self.endsWith('.ts')) return new Worker(new URL('./sqlite-writer-worker.js', self), { workerData, resourceLimits });
  const entry = new URL('./sqlite-writer-worker.ts', self).href;
  const code = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(code, { eval: true, workerData, resourceLimits });
}

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

  constructor(private readonly path: string) {
    // Started at once, so the first batch does not wait for the thread to load and open the store.
    this.worker = this.spawn();
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

  /** Lets the batches already sent finish, then closes the thread's connection and ends it. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      while (this.pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
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
    const worker = startWorker({ path: this.path });
    worker.on('message', (response: WriterResponse) => {
      const waiting = this.pending.get(response.id);
      if (!waiting) return;
      this.pending.delete(response.id);
      if (response.type === 'done') waiting.resolve(response.result as never);
      else if (response.type === 'expired') waiting.resolve(response.removed as never);
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
