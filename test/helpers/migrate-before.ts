import assert from 'node:assert/strict';
import { Migrator, sql } from 'kysely';
import type { Database } from '../../src/store/database.js';
import { migrations } from '../../src/store/migrations/index.js';

/** Applies the migrations that come before `name`, as a store last upgraded before it would have them. */
export async function migrateBefore(database: Database, name: string): Promise<void> {
  const before = Object.fromEntries(Object.entries(migrations).filter(([migration]) => migration < name));
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => before },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    ...(database.dialect === 'postgres' && { migrationTableSchema: await currentSchema(database) }),
  });
  assert.equal((await migrator.migrateToLatest()).error, undefined);
}

async function currentSchema(database: Database): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
  return rows[0]!.schema;
}
