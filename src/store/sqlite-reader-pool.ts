import type { Worker } from 'node:worker_threads';
import { nothingKnown, type KnownRuns } from '../domain/series/series-types.js';
import { startStoreWorker } from './start-store-worker.js';
import { readerLostCode } from './store-unavailable.js';
import type { ReaderJob, ReaderRequest, ReaderResponse, ReaderStart } from './sqlite-reader-protocol.js';

// A reader holds one read's rows at a time: at most a year of one thing's raw messages folded page by page, or a
// raw read's 100,000 messages (series-query.ts), or an export page of 1,000 bodies. Its heap stays well inside this.
const readerLimits = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 192 };

interface Job {
  id: number;
  job: ReaderJob;
  known: KnownRuns;
  resolve(value: unknown): void;
  reject(error: Error): void;
  settled: Promise<void>;
}

interface Reader {
  worker: Worker;
  current: Job | undefined;
}

/**
 * The main thread's side of SQLite's reader threads: heavy reads (series, long message pages, export pages, the
 * fleet overview) run on read-only connections in worker threads, so that one caller's read of a year of messages
 * never holds the event loop, which acknowledges every uplink and answers every other request. WAL lets them read
 * beside the writer thread and the main connection; each read runs in one read transaction (one snapshot).
 *
 * Up to `size` threads, started when the first read needs one; a read waits in order when all are busy. A thread
 * that dies (a crash, its heap exhausted) fails the read it ran with `readerLostCode` (503: try again) and the next
 * read starts a new one; nothing waits forever on a dead thread. Idle threads never keep the process alive.
 */
export class SqliteReaderPool {
  private readonly readers = new Set<Reader>();
  private readonly idle: Reader[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly path: string,
    private readonly size: number,
  ) {}

  /** Runs `job` on a reader thread; `known` answers a plan's questions (see KnownQuestion). Resolves with its value. */
  run<T>(job: ReaderJob, known: KnownRuns = nothingKnown): Promise<T> {
    if (this.closing) return Promise.reject(lostError('the store is closing'));
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        id: ++this.nextId,
        job,
        known,
        resolve: (value) => {
          settle();
          resolve(value as T);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
        settled,
      });
      this.dispatch();
    });
  }

  /**
   * Starts every thread now rather than on first use, so that the first heavy reads do not wait for threads to load
   * and open the store (tens of milliseconds compiled, seconds under tsx on a loaded machine). For a server, after
   * the store is migrated; a CLI command leaves them to start when needed.
   */
  prestart(): void {
    while (!this.closing && this.readers.size < this.size) {
      const reader = this.spawn();
      reader.worker.unref();
      this.idle.push(reader);
    }
  }

  /** Threads running and reads waiting for one (for tests and metrics). */
  get load(): { threads: number; busy: number; waiting: number } {
    return { threads: this.readers.size, busy: this.readers.size - this.idle.length, waiting: this.queue.length };
  }

  /**
   * Fails the reads still waiting, lets the running ones finish, then has every thread close its statements and
   * connection and end. Safe to call twice.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const job of this.queue.splice(0)) job.reject(lostError('the store is closing'));
      await Promise.all([...this.readers].map((reader) => reader.current?.settled));
      await Promise.all(
        [...this.readers].map((reader) => {
          this.readers.delete(reader);
          const exited = new Promise<void>((resolve) => reader.worker.once('exit', () => resolve()));
          // Held until it has ended: an idle thread is unreferenced, and the process would not wait for its exit.
          reader.worker.ref();
          reader.worker.postMessage({ type: 'close' } satisfies ReaderRequest);
          return exited;
        }),
      );
      this.idle.length = 0;
    })();
    return this.closing;
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const reader = this.idle.pop() ?? (this.readers.size < this.size ? this.spawn() : undefined);
      if (!reader) return;
      const job = this.queue.shift()!;
      try {
        reader.worker.postMessage({ type: 'job', id: job.id, job: job.job } satisfies ReaderRequest);
      } catch (error) {
        // Arguments that cannot be cloned (a caller's mistake): that read fails, the thread stays idle.
        this.idle.push(reader);
        job.reject(error as Error);
        continue;
      }
      reader.current = job;
      reader.worker.ref();
    }
  }

  private spawn(): Reader {
    const worker = startStoreWorker(
      new URL('./sqlite-reader-worker', import.meta.url),
      { path: this.path } satisfies ReaderStart,
      readerLimits,
    );
    const reader: Reader = { worker, current: undefined };
    this.readers.add(reader);
    worker.on('message', (response: ReaderResponse) => this.answer(reader, response));
    worker.on('error', (error) => this.lost(reader, error));
    worker.on('exit', (code) => this.lost(reader, new Error(`the SQLite reader thread exited with code ${code}`)));
    return reader;
  }

  private answer(reader: Reader, response: ReaderResponse): void {
    const job = reader.current;
    if (!job || job.id !== response.id) return;
    if (response.type === 'known') {
      let counts: (number | null)[];
      try {
        counts = response.etags.map((etag) => job.known(etag) ?? null);
      } catch {
        counts = response.etags.map(() => null);
      }
      reader.worker.postMessage({ type: 'known', id: job.id, counts } satisfies ReaderRequest);
      return;
    }
    reader.current = undefined;
    reader.worker.unref();
    if (!this.closing) this.idle.push(reader);
    if (response.type === 'done') job.resolve(response.value);
    else job.reject(Object.assign(new Error(response.message), { code: response.code }));
    this.dispatch();
  }

  /** The thread died: the read it ran fails as unavailable, and a waiting read starts a new thread. */
  private lost(reader: Reader, error: Error): void {
    if (!this.readers.delete(reader)) return;
    const at = this.idle.indexOf(reader);
    if (at >= 0) this.idle.splice(at, 1);
    reader.current?.reject(lostError(`a SQLite reader thread stopped: ${error.message}`, error));
    reader.current = undefined;
    if (!this.closing) this.dispatch();
  }
}

function lostError(message: string, cause?: Error): Error {
  return Object.assign(new Error(message, { cause }), { code: readerLostCode });
}
