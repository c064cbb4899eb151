import type { Kysely } from 'kysely';

/**
 * Alert rules (SPEC section 13):
 * - `alert_rules`: an organization's own conditions on a numeric uplink field; the name is unique in the
 *   organization (`alert_rules_name`), scope lists and channels are JSON arrays (null: no list). Their periods are
 *   ordinary `alerts` rows (`rule_id`, `severity`, `value` of migration 0026; `alert_type` the rule's name).
 * - `alert_rule_states`: what a (rule, thing) has shown so far that is not a period yet: since when (arrival time)
 *   the condition has held without the period being open (`pending_since`, for `for_s`) and the value then. Kept
 *   in the store so a restart or another instance continues a `for_s` window where it was.
 * Times are Unix milliseconds.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alert_rules')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('tsm_id', 'integer', (c) => c.notNull())
    .addColumn('field', 'varchar(200)', (c) => c.notNull())
    .addColumn('op', 'varchar(3)', (c) => c.notNull())
    .addColumn('threshold', 'double precision', (c) => c.notNull())
    .addColumn('clear_threshold', 'double precision')
    .addColumn('for_s', 'integer', (c) => c.notNull())
    .addColumn('group_ids', 'text')
    .addColumn('tuids', 'text')
    .addColumn('severity', 'varchar(16)', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('channels', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alert_rules_name').on('alert_rules').columns(['organization_id', 'name']).unique().execute();

  await db.schema
    .createTable('alert_rule_states')
    .addColumn('rule_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('tuid', 'varchar(64)', (c) => c.notNull())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('pending_since', 'bigint', (c) => c.notNull())
    .addColumn('value', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('alert_rule_states_pk', ['rule_id', 'tuid'])
    .execute();
  await db.schema.createIndex('alert_rules_periods').on('alerts').columns(['rule_id', 'closed_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('alert_rules_periods').execute();
  await db.schema.dropTable('alert_rule_states').execute();
  await db.schema.dropTable('alert_rules').execute();
}
