import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { SqliteBinding } from './sqlite-binding.js';
import { createPrivateFile, isSymbolicLink } from './private-files.js';

/**
 * Online copies of a SQLite store with SQLite's backup API (better-sqlite3 `db.backup()`), for `thingdesk backup`
 * and `thingdesk restore`. The copy is taken in one backup step: one read transaction over the source, so it is
 * the store as of one commit, whatever the uplink writer commits meanwhile (in WAL mode a reader never blocks the
 * writer, and the writer's commits land in the WAL after the reader's snapshot). Stepping page by page instead
 * would restart the copy at every commit from another connection, and under steady ingest might never finish.
 *
 * A copy holds everything the store holds, so it is created here, empty and 0600 with O_EXCL (private-files.ts),
 * before SQLite writes into it: never readable by others, never through a symbolic link planted at its name (a
 * link, dangling or not, is refused: O_EXCL fails on it instead of following it).
 */

/** What a copy wrote. */
export interface SqliteCopy {
  pages: number;
  bytes: number;
}

/** Why a backup or a restore was refused; the command line turns each into a sentence. */
export type SqliteCopyRefusal =
  | { refused: 'no-source'; path: string }
  | { refused: 'not-a-store'; path: string; reason: string }
  | { refused: 'destination-exists'; path: string }
  | { refused: 'destination-symlink'; path: string }
  | { refused: 'destination-not-empty'; path: string; tables: number };

// Copy every page in the backup's second step (the first only opens it): the whole copy is one snapshot.
const allPages = 0x7fffffff;
// Tables every thingdesk store has, from its first migration on: a copy without them is not one of ours.
const requiredTables = ['organizations', 'things', 'messages'];

/**
 * Copies the store at `storePath` to a new file `destination` while the platform may be writing to it, then checks
 * the copy (`quick_check`). Refuses a destination that exists (a backup never overwrites) and a source that is not
 * a thingdesk store.
 */
export async function backupSqliteStore(storePath: string, destination: string): Promise<SqliteCopy | SqliteCopyRefusal> {
  if (!existsSync(storePath)) return { refused: 'no-source', path: storePath };
  const taken = destinationTaken(destination);
  if (taken) return taken;
  const source = new SqliteBinding(storePath, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    const problem = storeProblem(source);
    if (problem) return { refused: 'not-a-store', path: storePath, reason: problem };
    // Something may have appeared at the name since the check above: O_EXCL decides, and refuses it.
    if (!createPrivateFile(destination)) return destinationTaken(destination) ?? { refused: 'destination-exists', path: destination };
    const copied = await source.backup(destination, { progress: () => allPages });
    checkCopy(destination);
    return { pages: copied.totalPages, bytes: statSync(destination).size };
  } finally {
    source.close();
  }
}

/**
 * Copies the backup `backupPath` into the store at `storePath`, which must be empty (no file, or a file with no
 * tables): a restore never overwrites data. The copy is checked (`quick_check`) before anything is written.
 */
export async function restoreSqliteStore(backupPath: string, storePath: string): Promise<SqliteCopy | SqliteCopyRefusal> {
  if (!existsSync(backupPath)) return { refused: 'no-source', path: backupPath };
  if (existsSync(storePath)) {
    const target = new SqliteBinding(storePath, { fileMustExist: true });
    try {
      const tables = target.prepare<[], number>("select count(*) from sqlite_master where type = 'table'").pluck().get()!;
      if (tables > 0) return { refused: 'destination-not-empty', path: storePath, tables };
    } finally {
      target.close();
    }
  }
  let source: SqliteDatabase.Database;
  try {
    source = new SqliteBinding(backupPath, { fileMustExist: true, readonly: true });
  } catch (error) {
    return { refused: 'not-a-store', path: backupPath, reason: (error as Error).message };
  }
  try {
    const problem = storeProblem(source) ?? quickCheckProblem(source);
    if (problem) return { refused: 'not-a-store', path: backupPath, reason: problem };
    mkdirSync(dirname(resolve(storePath)), { recursive: true });
    // A new store is created private (the platform would make it so at its next start; it is never readable meanwhile).
    createPrivateFile(storePath);
    const copied = await source.backup(storePath, { progress: () => allPages });
    return { pages: copied.totalPages, bytes: statSync(storePath).size };
  } finally {
    source.close();
  }
}

/** Why a backup may not be written at `destination`: a symbolic link or an existing file; undefined when the name is free. */
function destinationTaken(destination: string): SqliteCopyRefusal | undefined {
  if (isSymbolicLink(destination)) return { refused: 'destination-symlink', path: destination };
  if (existsSync(destination)) return { refused: 'destination-exists', path: destination };
  return undefined;
}

/** Why `connection` is not a thingdesk store, or undefined when it is one (a file that is not SQLite throws here). */
function storeProblem(connection: SqliteDatabase.Database): string | undefined {
  let tables: string[];
  try {
    tables = connection.prepare<[], string>("select name from sqlite_master where type = 'table'").pluck().all();
  } catch (error) {
    return (error as Error).message;
  }
  const missing = requiredTables.filter((table) => !tables.includes(table));
  return missing.length > 0 ? `it has no ${missing.join(', ')} table (not a thingdesk store)` : undefined;
}

function quickCheckProblem(connection: SqliteDatabase.Database): string | undefined {
  const result = connection.pragma('quick_check', { simple: true });
  return result === 'ok' ? undefined : `quick_check: ${String(result)}`;
}

function checkCopy(path: string): void {
  const copy = new SqliteBinding(path, { fileMustExist: true, readonly: true });
  try {
    const problem = quickCheckProblem(copy);
    if (problem) throw new Error(`the copy at ${path} failed its check: ${problem}`);
  } finally {
    copy.close();
  }
}
