import { sql, type Kysely } from 'kysely';
import { autoIncrementId, isSqlite } from './dialect.js';

/**
 * Things with their summary, the message store and the dead-letter table (SPEC sections 3, 5 and 6).
 *
 * The messages table has exactly one index: its primary key (tuid, tsm_ts, tsm_id, fingerprint). It serves both
 * "newest messages of a thing" (a range scan of one tuid, read backwards) and de-duplication of redelivered
 * messages (INSERT ... ON CONFLICT DO NOTHING). Every extra index would cost a random page write per row, and the
 * index is what bounds ingest throughput. On SQLite the table is WITHOUT ROWID, so the key *is* the table: one
 * B-tree write per message.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = isSqlite(db);

  await db.schema
    .createTable('things')
    .addColumn('tuid', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(40)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('group_id', 'varchar(64)')
    .addColumn('installation_status', 'varchar(20)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // Summary, each value from the newest message (by tsmTs) that carries it, with that message's tsmTs.
    .addColumn('last_ts', 'double precision')
    .addColumn('last_gateway_tuid', 'varchar(64)')
    .addColumn('battery_level', 'double precision')
    .addColumn('battery_ts', 'double precision')
    .addColumn('version', 'text')
    .addColumn('version_ts', 'double precision')
    .addColumn('lat', 'double precision')
    .addColumn('lon', 'double precision')
    .addColumn('location_ts', 'double precision')
    // When the platform last heard the thing, on its own clock, and through which gateway (silence alerts).
    .addColumn('last_heard_at', 'bigint')
    .addColumn('last_heard_gateway_tuid', 'varchar(64)')
    .execute();
  await db.schema.createIndex('things_organization_tuid').on('things').columns(['organization_id', 'tuid']).execute();
  await db.schema.createIndex('things_organization_group').on('things').columns(['organization_id', 'group_id', 'tuid']).execute();

  let messages = db.schema
    .createTable('messages')
    .addColumn('tuid', 'varchar(64)', (c) => c.notNull())
    .addColumn('tsm_ts', 'double precision', (c) => c.notNull())
    .addColumn('tsm_id', 'integer', (c) => c.notNull())
    .addColumn('fingerprint', 'varchar(16)', (c) => c.notNull())
    .addColumn('organization_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('tsm_ev', 'integer')
    .addColumn('gateway_tuid', 'varchar(64)')
    .addColumn('group_id', 'varchar(64)')
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('problems', 'text')
    .addPrimaryKeyConstraint('messages_pkey', ['tuid', 'tsm_ts', 'tsm_id', 'fingerprint']);
  if (sqlite) messages = messages.modifyEnd(sql`without rowid`);
  await messages.execute();

  await autoIncrementId(db, db.schema.createTable('dead_letters'))
    .addColumn('organization_id', 'varchar(40)')
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('client', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('dead_letters_organization_received')
    .on('dead_letters')
    .columns(['organization_id', 'received_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['dead_letters', 'messages', 'things']) await db.schema.dropTable(table).execute();
}
