import { sql, type Kysely } from 'kysely';
import {
  createMessagePartitions,
  defaultMessagePartition,
  messagePartitionsAheadMs,
  messagePartitionStartSql,
} from '../retention/message-partitions.js';
import { isSqlite } from './dialect.js';

/**
 * Retention (SPEC section 9, docs/decisions.md "Retention").
 *
 * - `organizations` gets the organization's own retention in days (null: the platform's default) and
 *   `messages_cleared_before`, how far (arrival, ms) the sweep has already cleared its messages on PostgreSQL.
 * - `command_requests` gets an index by organization and time, so their expiry finds them.
 * - SQLite: `messages` gets an index by organization and arrival, so the sweep finds expired rows in small
 *   batches. Arrivals grow with time, so new entries land on the index's last page: a cheap write per row.
 * - PostgreSQL: `messages` becomes a table partitioned by arrival, a week per partition, plus a default partition
 *   (message-partitions.ts); rows stored so far move into it. A partitioned table's unique key must contain the
 *   partition key, and `received_at` differs between deliveries of one message, so the primary key gives way to a
 *   plain index on the same columns; the ingest checks for an earlier delivery itself (ingest-batch-postgres.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('message_retention_days', 'integer').execute();
  await db.schema.alterTable('organizations').addColumn('rollup_retention_days', 'integer').execute();
  await db.schema.alterTable('organizations').addColumn('messages_cleared_before', 'bigint').execute();
  await db.schema
    .createIndex('command_requests_organization_time')
    .on('command_requests')
    .columns(['organization_id', 'timestamp'])
    .execute();
  if (isSqlite(db)) {
    await db.schema.createIndex('messages_organization_received').on('messages').columns(['organization_id', 'received_at']).execute();
    return;
  }
  await sql`alter table messages rename to messages_unpartitioned`.execute(db);
  await sql`alter table messages_unpartitioned rename constraint messages_pkey to messages_unpartitioned_pkey`.execute(db);
  // The same columns, whatever earlier migrations gave the table (LIKE copies them, their NOT NULLs and defaults).
  await sql`create table messages (like messages_unpartitioned including defaults) partition by range (received_at)`.execute(db);
  // The one index, as before: a thing's messages by time (read backwards for "newest first") and the probe that
  // finds an earlier delivery. Created on the parent, so every partition gets its own.
  await sql`create index messages_thing_time on messages (tuid, tsm_ts, tsm_id, fingerprint)`.execute(db);
  await sql`create table ${sql.id(defaultMessagePartition)} partition of messages default`.execute(db);
  // A partition for each week that holds rows (not every week since the oldest: a store may hold a stray row
  // from 1970), then the weeks ahead.
  const weeks = await sql<{ start: number }>`
    select distinct ${messagePartitionStartSql(sql.ref('received_at'))} as start from messages_unpartitioned`.execute(db);
  for (const { start } of weeks.rows) await createMessagePartitions(db, Number(start), Number(start));
  const now = Date.now();
  await createMessagePartitions(db, now, now + messagePartitionsAheadMs);
  await sql`insert into messages select * from messages_unpartitioned`.execute(db);
  await sql`drop table messages_unpartitioned`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await db.schema.dropIndex('messages_organization_received').execute();
  else {
    await sql`alter table messages rename to messages_partitioned`.execute(db);
    await sql`create table messages (like messages_partitioned)`.execute(db);
    await sql`insert into messages select distinct on (tuid, tsm_ts, tsm_id, fingerprint) * from messages_partitioned`.execute(db);
    await sql`alter table messages add constraint messages_pkey primary key (tuid, tsm_ts, tsm_id, fingerprint)`.execute(db);
    await sql`drop table messages_partitioned cascade`.execute(db);
  }
  await db.schema.dropIndex('command_requests_organization_time').execute();
  for (const column of ['messages_cleared_before', 'rollup_retention_days', 'message_retention_days'])
    await db.schema.alterTable('organizations').dropColumn(column).execute();
}
