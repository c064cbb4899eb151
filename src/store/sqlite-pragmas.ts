import type SqliteDatabase from 'better-sqlite3';

/**
 * Settings of every SQLite connection to the store: the main one (queries and the other modules' writes) and the
 * uplink writer's (its worker thread). Both must agree on WAL and foreign keys; they differ in cache size.
 *
 * - WAL lets readers run beside the single writer; synchronous=NORMAL in WAL mode still survives a process crash
 *   (only a power loss can drop the last transactions), which is the durability the platform promises.
 * - busy_timeout: two connections write (the uplink writer and the main one), and SQLite serializes them with its
 *   file lock; a writer that finds the lock taken waits up to 5 s instead of failing at once.
 * - cache_size: 10,000 things' primary-key pages do not fit the default 2 MB, and every uplink row lands on a
 *   different page of the messages index. The writer gets 32 MB (store-alone: 30k → 40k rows/s with a large
 *   cache; the writer thread is no longer the bottleneck, and 64 MB pushed the platform past its 400 MB RSS
 *   budget), the main connection 8 MB for reads.
 * - wal_autocheckpoint=10000 pages (~40 MB) is only the fallback: the checkpointer thread (sqlite-checkpointer.ts)
 *   keeps the log far shorter, so a committing connection checkpoints only if that thread cannot (a reader held
 *   an old snapshot for long, or the thread is gone). A checkpoint in the writer stalled ingest for 50 to 125 ms.
 * - temp_store=memory: sorts and temporary indexes never touch the disk.
 * - auto_vacuum=incremental: space freed by the retention sweep goes back to the file system a few pages at a
 *   time (`pragma incremental_vacuum`, sqlite-expiry.ts). It can only be set before the first table exists, so it
 *   takes effect on new stores; an existing store keeps reusing freed pages (its freelist) instead, unless an
 *   operator runs VACUUM once (docs/operations.md).
 * mmap is left off: mapped pages would count in the process's RSS and SQLite's own cache is enough here.
 */
export function tuneSqliteConnection(connection: SqliteDatabase.Database, role: 'main' | 'writer'): void {
  if (role === 'main') connection.pragma('auto_vacuum = incremental');
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  connection.pragma(`cache_size = ${role === 'writer' ? -32_768 : -8192}`);
  connection.pragma('wal_autocheckpoint = 10000');
  connection.pragma('temp_store = memory');
}
