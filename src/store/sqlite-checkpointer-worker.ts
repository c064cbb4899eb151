/**
 * The checkpointer thread (see sqlite-checkpointer.ts): its own connection to the store file, which only
 * checkpoints.
 *
 * Every `intervalMs` it runs a PASSIVE checkpoint: it copies the log's pages into the file and syncs it without
 * waiting for, or holding up, any reader or writer. That alone does not shorten the log: SQLite starts writing it
 * from the beginning again only when a transaction begins with every page copied, and a writer that commits every
 * few milliseconds adds pages while each checkpoint runs. So once the log holds `restartPages`, a RESTART
 * checkpoint follows at once: it takes the write lock (waiting at most `busy_timeout`), copies the few pages
 * committed since the PASSIVE one, waits for readers to leave the log and makes the next commit start it anew. A
 * writer waits for that, a few milliseconds, instead of for a whole checkpoint of 40 MB. A RESTART that finds the
 * lock or a reader busy gives up (SQLITE_BUSY, reported in the row) and is tried again next time.
 *
 * Measured (bench/lifecycle/retention-sweep.ts, 2,000,000 rows swept under a fleet at 2,000 msg/s): the log
 * stayed under 7,000 pages; the PASSIVE checkpoints took 2 to 19 ms, the RESTARTs 0 to 15 ms.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';

export interface CheckpointerStart {
  /** The store's file. */
  path: string;
}

const intervalMs = 50;
// 8 MB of log. Smaller restarts more often for little gain; each RESTART holds the writers for a moment.
const restartPages = 2000;

interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

const port = parentPort!;
const { path } = workerData as CheckpointerStart;
const connection = new SqliteDatabase(path, { fileMustExist: true });
// How long a RESTART waits for the writer's transaction, or a reader, before giving up until the next tick.
connection.pragma('busy_timeout = 20');
// A checkpoint reads the log and writes the file; it has no use for a page cache.
connection.pragma('cache_size = -512');

function checkpoint(mode: 'PASSIVE' | 'RESTART'): CheckpointRow {
  // The pragma answers one row, in every mode.
  return (connection.pragma(`wal_checkpoint(${mode})`) as CheckpointRow[])[0]!;
}

function tick(): void {
  try {
    const copied = checkpoint('PASSIVE');
    if (copied.busy === 0 && copied.log >= restartPages) checkpoint('RESTART');
  } catch {
    // An I/O error or a locked file: the writers' own checkpoints still bound the log; try again next time.
  }
  timer = setTimeout(tick, intervalMs);
}

let timer = setTimeout(tick, intervalMs);

port.on('message', () => {
  // The only message is 'close'.
  clearTimeout(timer);
  connection.close();
  port.close();
});
