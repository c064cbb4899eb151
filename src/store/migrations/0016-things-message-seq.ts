import type { Kysely } from 'kysely';

/**
 * `things.message_seq`: how many messages of the thing have been stored (since this migration), so the number of
 * its newest; `message_seq_at`: when that one was committed (ms, the storing instance's clock). The PostgreSQL
 * batch writer bumps both in the summary update it runs anyway, under the row lock that serializes two instances'
 * batches for one thing, and gives each stored message its number (`StoredMessage.seq`): live streams on every
 * instance deliver a thing's messages in that order (src/integration/stored-order.ts). Both fit the room left on
 * each page for the row's next version (migration 0009), so the update stays heap-only. Added on SQLite too (one
 * schema history), unused there: one process emits its commits in order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('things')
    .addColumn('message_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('things').addColumn('message_seq_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('things').dropColumn('message_seq_at').execute();
  await db.schema.alterTable('things').dropColumn('message_seq').execute();
}
