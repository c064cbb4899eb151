import { Migrator, sql, type Kysely } from 'kysely';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';
import type { Schema } from './schema.js';

export interface MigrationReport {
  /** Names of the migrations this call applied (empty when the store was up to date). */
  applied: string[];
}

// An arbitrary constant shared by every instance: the PostgreSQL advisory lock that serializes migrations.
const migrationLockKey = 7_413_220_101;

/**
 * Brings the store to the newest schema; every migration runs in its own transaction. Safe when several instances
 * start at once: on PostgreSQL they queue on an advisory lock (Kysely's own lock table is created racily); on
 * SQLite the loser of a race retries.
 */
export async function migrateToLatest(database: Database): Promise<MigrationReport> {
  if (database.dialect === 'postgres') {
    return database.db.connection().execute(async (connection) => {
      await sql`select pg_advisory_lock(${migrationLockKey})`.execute(connection);
      try {
        // Kysely looks for its tables in every schema unless told which; name ours (the search_path's first).
        const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(connection);
        return await runMigrator(database.db, rows[0]?.schema);
      } finally {
        await sql`select pg_advisory_unlock(${migrationLockKey})`.execute(connection);
      }
    });
  }
  // SQLite has no advisory locks and Kysely's lock is a no-op there: a migrator that loses a race sees its
  // transaction rolled back, waits for the winner and reads again what is left to apply.
  for (let attempt = 1; ; attempt++) {
    try {
      return await runMigrator(database.db);
    } catch (error) {
      if (attempt >= sqliteMigrationAttempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

const sqliteMigrationAttempts = 10;

async function runMigrator(db: Kysely<Schema>, schema?: string): Promise<MigrationReport> {
  const migrator = new Migrator({
    db,
    ...(schema !== undefined && { migrationTableSchema: schema }),
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'setup';
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`migration ${failed} failed: ${reason}`);
  }
  return { applied: (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
