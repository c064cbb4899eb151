import type { Kysely } from 'kysely';

/**
 * `cluster_secrets`: secrets the instances of one deployment share through the store they already share, by name,
 * created once by whichever instance needs one first (src/store/cluster-secrets-store.ts). The first is the key
 * that signs the live relay's batches (src/integration/relay-batch.ts). Created on SQLite too (one schema history).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cluster_secrets')
    .addColumn('name', 'varchar(60)', (c) => c.primaryKey())
    .addColumn('secret', 'varchar(200)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cluster_secrets').execute();
}
