import { sql, type Kysely } from 'kysely';

/**
 * Alerts as work items (SPEC section 16):
 * - `severity`, `rule_id`, `value`: what kind of work a period is. Generic, so rule alerts (SPEC section 13) use the
 *   same columns: built-in periods have `rule_id` null, `value` the opening `batl` of battery low, else null.
 * - `incident_id`: periods that share a cause (every `gateway connection lost` opened by one gateway's silence).
 * - `gateway_tuid` (from 0007, now written for every type) and `group_id`: the thing's gateway and group when the
 *   period opened.
 * - `acknowledged_by/at/note`: who marked the period seen; it stays open until its condition clears.
 *
 * Indexes: the alerts list walks an organization's periods newest first (`alerts_organization_opened`), its open
 * ones through a partial index (`alerts_open_by_organization`), so `GET /alerts?state=open` reads one page of
 * index entries however many closed periods there are; an incident's periods through `alerts_incident`.
 *
 * `gateways`: the MQTT credential each gateway last published with (SPEC section 16's `mqtt_username`), written by
 * ingest at most every few minutes per gateway (domain/gateways/gateway-sightings.ts). When a gateway was last heard
 * stays with its things (`things.last_heard_*`, as the alert engine measures silence).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('alerts').addColumn('severity', 'varchar(16)').execute();
  await db.schema.alterTable('alerts').addColumn('rule_id', 'varchar(64)').execute();
  await db.schema.alterTable('alerts').addColumn('value', 'double precision').execute();
  await db.schema.alterTable('alerts').addColumn('incident_id', 'varchar(200)').execute();
  await db.schema.alterTable('alerts').addColumn('group_id', 'varchar(64)').execute();
  await db.schema.alterTable('alerts').addColumn('acknowledged_by', 'varchar(320)').execute();
  await db.schema.alterTable('alerts').addColumn('acknowledged_at', 'bigint').execute();
  await db.schema.alterTable('alerts').addColumn('acknowledgement_note', 'varchar(1024)').execute();
  // Periods opened before this migration get their built-in severity; their group and value are not known any more.
  await sql`update alerts set severity = case alert_type when 'gateway connection lost' then 'critical' else 'warning' end
            where severity is null`.execute(db);
  await db.schema.createIndex('alerts_organization_opened').on('alerts').columns(['organization_id', 'opened_at', 'id']).execute();
  await db.schema
    .createIndex('alerts_open_by_organization')
    .on('alerts')
    .columns(['organization_id', 'opened_at', 'id'])
    .where(sql.ref('closed_at'), 'is', null)
    .execute();
  await db.schema.createIndex('alerts_incident').on('alerts').columns(['incident_id']).execute();
  await db.schema
    .createTable('gateways')
    .addColumn('organization_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('gateway_tuid', 'varchar(64)', (c) => c.notNull())
    .addColumn('mqtt_username', 'varchar(256)')
    .addColumn('seen_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('gateways_pk', ['organization_id', 'gateway_tuid'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('gateways').execute();
  await db.schema.dropIndex('alerts_incident').execute();
  await db.schema.dropIndex('alerts_open_by_organization').execute();
  await db.schema.dropIndex('alerts_organization_opened').execute();
  for (const column of [
    'acknowledgement_note',
    'acknowledged_at',
    'acknowledged_by',
    'group_id',
    'incident_id',
    'value',
    'rule_id',
    'severity',
  ]) {
    await db.schema.alterTable('alerts').dropColumn(column).execute();
  }
}
