import { SqliteAdapter, type Kysely } from 'kysely';

/** True when a migration runs on SQLite; for the few statements the dialects spell differently. */
export function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}
