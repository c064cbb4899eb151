import type { Kysely } from 'kysely';
import { autoIncrementId } from './dialect.js';

/**
 * Webhooks (SPEC section 11):
 * - `webhook_endpoints`: an organization's receivers, their filters (JSON arrays, null: no filter), their signing
 *   secret sealed like the token-signing keys (and the previous one while a rotation overlaps), and their health;
 * - `webhook_deliveries`: the outbox. A row is written in the transaction that stores its cause (an ingest batch,
 *   an alert change, a command answer, a thing change) and holds the events as JSON (`events`), so a crash loses
 *   none; the dispatcher claims due rows (`next_attempt_at`, `locked_until`: the lease of the attempt running);
 * - `webhook_attempts`: the delivery log, one row per attempt with at most 4 KB of the response body.
 * Times are Unix milliseconds.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('group_ids', 'text')
    .addColumn('tuids', 'text')
    .addColumn('tsm_ids', 'text')
    .addColumn('batch_max_events', 'integer', (c) => c.notNull())
    .addColumn('batch_max_wait_ms', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'bigint')
    .addColumn('health_state', 'varchar(10)', (c) => c.notNull())
    .addColumn('failing_since', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('last_success_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_organization').on('webhook_endpoints').columns(['organization_id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('endpoint_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('event_count', 'integer', (c) => c.notNull())
    .addColumn('status', 'varchar(10)', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'status', 'next_attempt_at'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_log').on('webhook_deliveries').columns(['endpoint_id', 'created_at']).execute();
  await db.schema.createIndex('webhook_deliveries_expiry').on('webhook_deliveries').columns(['status', 'updated_at']).execute();

  await autoIncrementId(db, db.schema.createTable('webhook_attempts'))
    .addColumn('delivery_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('endpoint_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'at']).execute();
  await db.schema.createIndex('webhook_attempts_at').on('webhook_attempts').columns(['at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
