import { sql, type Kysely } from 'kysely';

/**
 * The alert engine (SPEC section 7):
 * - `leases`: named cluster leases in the store; the alert engine's timer runs only on the instance holding
 *   `alert-engine` (SPEC section 1: one runner per cluster).
 * - `alerts.gateway_tuid`: which gateway a `gateway connection lost` period is about (null for other types), so
 *   the periods of one gateway close together when it is heard again.
 * - At most one active period per thing and type: a partial unique index, the arbiter of concurrent opens.
 *
 * No index on things(last_heard_*): those columns change with nearly every uplink, and an index on them would
 * cost a write per message (and PostgreSQL's HOT updates). The engine's timer scans things once per run instead.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('leases')
    .addColumn('name', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('holder', 'varchar(100)', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('alerts').addColumn('gateway_tuid', 'varchar(64)').execute();
  // Periods written before this index (by hand) could hold two active ones; keep the newest active.
  await sql`update alerts set closed_at = opened_at
            where closed_at is null
              and id not in (select max(id) from alerts where closed_at is null group by tuid, alert_type)`.execute(db);
  await db.schema
    .createIndex('alerts_one_active')
    .on('alerts')
    .columns(['tuid', 'alert_type'])
    .unique()
    .where(sql.ref('closed_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('alerts_one_active').execute();
  await db.schema.alterTable('alerts').dropColumn('gateway_tuid').execute();
  await db.schema.dropTable('leases').execute();
}
