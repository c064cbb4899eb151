import type { Kysely } from 'kysely';

/**
 * Notification channels (SPEC section 13):
 * - `notification_channels`: an organization's e-mail (`recipients`, a JSON array) and chat (`url`) channels. Their
 *   deliveries are ordinary outbox rows (`webhook_deliveries`, `endpoint_id` the channel's id) tried by the webhook
 *   dispatcher, their attempts in `webhook_attempts`.
 * - `notify_states`: per (rule, thing) the state last notified and when (`NOTIFY_MIN_INTERVAL_S`), and the
 *   deferred deliveries that carry the latest state when the interval ends (`deferred_ids`, JSON; `deferred_base`:
 *   the state notified before them).
 * - `notify_digests`: per (channel, rule) the current 60 s window, the openings notified singly in it, and the
 *   digest delivery collecting the later ones.
 * - `organization_alert_channels`: the channels each built-in alert type notifies (JSON object of id arrays).
 * The two noise-control tables are read and written in the transaction of the alert change (locked rows on
 * PostgreSQL), so a restart or a second instance neither sends twice nor loses a notification. Times are Unix ms.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notification_channels')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('type', 'varchar(10)', (c) => c.notNull())
    .addColumn('recipients', 'text')
    .addColumn('url', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notification_channels_organization').on('notification_channels').columns(['organization_id']).execute();

  await db.schema
    .createTable('notify_states')
    .addColumn('rule_key', 'varchar(160)', (c) => c.notNull())
    .addColumn('tuid', 'varchar(64)', (c) => c.notNull())
    .addColumn('last_state', 'varchar(10)', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .addColumn('deferred_ids', 'text')
    .addColumn('deferred_base', 'varchar(10)')
    .addPrimaryKeyConstraint('notify_states_key', ['rule_key', 'tuid'])
    .execute();

  await db.schema
    .createTable('notify_digests')
    .addColumn('channel_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('rule_key', 'varchar(160)', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('single_count', 'integer', (c) => c.notNull())
    .addColumn('digest_id', 'varchar(40)')
    .addPrimaryKeyConstraint('notify_digests_key', ['channel_id', 'rule_key'])
    .execute();

  await db.schema
    .createTable('organization_alert_channels')
    .addColumn('organization_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('channels', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('organization_alert_channels').execute();
  await db.schema.dropTable('notify_digests').execute();
  await db.schema.dropTable('notify_states').execute();
  await db.schema.dropTable('notification_channels').execute();
}
