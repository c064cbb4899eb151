import { SqliteAdapter, type CreateTableBuilder, type Kysely } from 'kysely';

/** True when a migration runs on SQLite; for the few statements the dialects spell differently. */
export function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/** Adds an `id` primary key the database numbers itself (SQLite autoincrement, PostgreSQL bigserial). */
export function autoIncrementId<T extends string>(db: Kysely<unknown>, table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'> {
  return isSqlite(db)
    ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    : table.addColumn('id', 'bigserial', (c) => c.primaryKey());
}
