import type { Worker } from 'node:worker_threads';
import { startStoreWorker } from './start-store-worker.js';
import type { CheckpointerStart } from './sqlite-checkpointer-worker.js';

// The thread holds no data of its own: a checkpoint copies pages inside SQLite, outside the JavaScript heap.
const checkpointerLimits = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 };

/**
 * Copies the store's write-ahead log back into the database file from a thread of its own, so that the
 * connections that commit (above all the uplink writer's) never do.
 *
 * In WAL mode the connection whose commit takes the log past `wal_autocheckpoint` pages runs the checkpoint
 * itself: it copies every page the log holds into the file and syncs both. For the uplink writer that meant one
 * batch or retention step in a hundred waited 50 to 125 ms, and during a retention sweep (whose deletes write a
 * lot of log) the fleet's p99 acknowledgement rose to 2 to 3 times its usual value. This thread checkpoints the
 * log every few tens of milliseconds instead, and restarts it once it is long (sqlite-checkpointer-worker.ts), so
 * the log never reaches the writers' threshold. If this thread cannot keep up (a reader holding an old snapshot
 * for long, such as a backup), the writers' own checkpoint is still there and takes over as before.
 */
export class SqliteCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(path: string) {
    this.worker = startStoreWorker(
      new URL('./sqlite-checkpointer-worker', import.meta.url),
      { path } satisfies CheckpointerStart,
      checkpointerLimits,
    );
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    // A thread that fails leaves the writers' own checkpoints in charge, which is how the store ran before it:
    // slower under heavy writes, nothing lost. Said once on stderr, as a process warning.
    this.worker.on('error', (error) =>
      process.emitWarning(`the SQLite checkpointer thread stopped (${error.message}); the writers checkpoint the log themselves`),
    );
    // Never the reason the process stays up.
    this.worker.unref();
  }

  /** Ends the thread after its current checkpoint, if one is running. Safe to call twice. */
  close(): Promise<void> {
    this.worker.postMessage('close');
    return this.exited;
  }
}
