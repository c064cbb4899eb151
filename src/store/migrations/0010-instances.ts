import type { Kysely } from 'kysely';

/**
 * `instances`: every running platform process of the deployment registers here and renews its row (heartbeat),
 * so `thingdesk status` can list the live ones with what each runs. A row whose heartbeat stopped is a dead or
 * partitioned instance; it is shown as such and pruned later. `details` is JSON: the figures of the moment
 * (consumer slots, lag, live subscriptions), rewritten at each heartbeat.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('instances')
    .addColumn('id', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('version', 'varchar(40)', (c) => c.notNull())
    .addColumn('host', 'varchar(255)', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('instances').execute();
}
