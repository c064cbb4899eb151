/**
 * The checkpointer thread (see sqlite-checkpointer.ts): its own connection to the store file, which only
 * checkpoints.
 *
 * Every `intervalMs` it runs a PASSIVE checkpoint: it copies the log's pages into the file and syncs it without
 * waiting for, or holding up, any reader or writer. That alone does not shorten the log: SQLite starts writing it
 * from the beginning again only when a transaction begins with every page copied, and a writer that commits every
 * few milliseconds adds pages while each checkpoint runs. So once the log holds `restartPages` and the PASSIVE
 * checkpoint copied all of it, a RESTART checkpoint follows at once: it takes the write lock, copies the few pages
 * committed since the PASSIVE one, waits for readers to leave the log and makes the next commit start it anew. A
 * writer waits for that, a few milliseconds, instead of for a whole checkpoint of 40 MB. Both waits are bounded by
 * `busy_timeout`; a RESTART that finds the lock or a reader still busy gives up (SQLITE_BUSY, reported in the row)
 * and is tried again `retryMs` later.
 *
 * Measured (bench/lifecycle/retention-sweep.ts, 2,000,000 rows swept under a fleet at 2,000 msg/s): the log
 * stayed under 7,000 pages; the PASSIVE checkpoints took 2 to 19 ms, the RESTARTs 0 to 15 ms.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteBinding } from './sqlite-binding.js';

export interface CheckpointerStart {
  /** The store's file. */
  path: string;
}

const intervalMs = 50;
// After a RESTART that gave up: the writer's transactions follow each other closely under heavy ingest, and the
// next gap between them comes sooner than the next tick.
const retryMs = 5;
// 8 MB of log. Smaller restarts more often for little gain; each RESTART holds the writers for a moment.
const restartPages = 2000;

interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

const port = parentPort!;
const { path } = workerData as CheckpointerStart;
const connection = new SqliteBinding(path, { fileMustExist: true });
// How long a RESTART waits for the write lock, then for readers, before giving up. Readers of an older snapshot are
// excluded before (see tick), so the wait for readers, with the write lock held, is for reads that began since the
// PASSIVE checkpoint: short, except for a long read (a backup) that began in exactly that moment, which costs the
// writer this timeout once. So it is short, and a RESTART that gave up is tried again soon (retryMs): with 100 ms
// and no early retry, the first read of a backup held the writer for 114 ms; with 20 ms and no early retry, a test
// writing 8 MB batches on a loaded machine saw its RESTARTs fail until the log reached the writers' threshold.
// On a slow or loaded host a writer's transaction holds the lock longer than that, and a copy of what it committed
// takes the gap before its next one: RESTARTs gave up one after another until the log reached 42 to 44 MB. So each
// RESTART that gives up doubles the next one's wait, up to longestWaitMs; a success, or a reader that keeps pages from
// being copied (no RESTART is tried then), brings it back to the shortest. The cost is a writer that waits, at worst,
// the longest wait once, for a backup that began right after a PASSIVE checkpoint while ingest was idle.
const shortestWaitMs = 20;
const longestWaitMs = 160;
let waitMs = shortestWaitMs;
connection.pragma(`busy_timeout = ${waitMs}`);
// A checkpoint reads the log and writes the file; it has no use for a page cache.
connection.pragma('cache_size = -512');

function checkpoint(mode: 'PASSIVE' | 'RESTART'): CheckpointRow {
  // The pragma answers one row, in every mode.
  return (connection.pragma(`wal_checkpoint(${mode})`) as CheckpointRow[])[0]!;
}

function waitFor(ms: number): void {
  if (ms === waitMs) return;
  waitMs = ms;
  connection.pragma(`busy_timeout = ${ms}`);
}

function tick(): void {
  let gaveUp = false;
  try {
    const copied = checkpoint('PASSIVE');
    // Only once the PASSIVE one copied everything: a reader holding an older snapshot (a backup) keeps pages from
    // being copied, and a RESTART would then hold the write lock for its busy_timeout only to give up.
    if (copied.busy === 0 && copied.log >= restartPages && copied.checkpointed === copied.log) {
      gaveUp = checkpoint('RESTART').busy !== 0;
      waitFor(gaveUp ? Math.min(waitMs * 2, longestWaitMs) : shortestWaitMs);
    } else if (copied.checkpointed < copied.log) {
      waitFor(shortestWaitMs);
    }
  } catch {
    // An I/O error or a locked file: the writers' own checkpoints still bound the log; try again next time.
  }
  timer = setTimeout(tick, gaveUp ? retryMs : intervalMs);
}

let timer = setTimeout(tick, intervalMs);

port.on('message', () => {
  // The only message is 'close'.
  clearTimeout(timer);
  connection.close();
  port.close();
});
