import type { Kysely } from 'kysely';

/**
 * `mqtt_client_ids`: which MQTT credential owns a client id, for MQTT_AUTH=http (issue 32 finding 4). The broker
 * asks every instance alike, so the owner lives in the store and every instance answers the same. A row is made by
 * the first successful authentication with that client id; a credential revoked or deleted gives its ids up to the
 * next credential that authenticates with them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mqtt_client_ids')
    .addColumn('client_id', 'varchar(256)', (c) => c.primaryKey())
    .addColumn('username', 'varchar(256)', (c) => c.notNull())
    .addColumn('claimed_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mqtt_client_ids').execute();
}
