import type { Kysely } from 'kysely';
import { autoIncrementId } from './dialect.js';

/**
 * Command history (SPEC section 3): one request row per POST, one item row per command. Items are found by
 * (tuid, transaction_id) when a device's response arrives.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await autoIncrementId(db, db.schema.createTable('command_requests'))
    .addColumn('organization_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('tuid', 'varchar(64)', (c) => c.notNull())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('responsible', 'varchar(320)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('command_requests_tuid').on('command_requests').columns(['tuid', 'id']).execute();

  await db.schema
    .createTable('command_items')
    .addColumn('request_id', 'bigint', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('tuid', 'varchar(64)', (c) => c.notNull())
    .addColumn('transaction_id', 'bigint')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(20)', (c) => c.notNull())
    .addColumn('response', 'text')
    .addColumn('responded_at', 'bigint')
    .addPrimaryKeyConstraint('command_items_pkey', ['request_id', 'position'])
    .execute();
  await db.schema.createIndex('command_items_transaction').on('command_items').columns(['tuid', 'transaction_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('command_items').execute();
  await db.schema.dropTable('command_requests').execute();
}
