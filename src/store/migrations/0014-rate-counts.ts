import type { Kysely } from 'kysely';

/**
 * `rate_counts`: with several instances on one PostgreSQL store, each publishes its request counts of the current
 * one-minute window per rate limiter and key, and reads the others' (src/integration/shared-rate-limits.ts), so
 * RATE_LIMIT_PER_TOKEN and RATE_LIMIT_PER_ADDRESS hold for the deployment, not per instance. The window leads the
 * key: a window's rows are read together and dropped together. Created on SQLite too (one schema history), unused.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rate_counts')
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('limiter', 'varchar(20)', (c) => c.notNull())
    .addColumn('key', 'varchar(200)', (c) => c.notNull())
    .addColumn('instance_id', 'varchar(100)', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_counts_pkey', ['window_start', 'limiter', 'key', 'instance_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('rate_counts').execute();
}
