import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import { isSqlite } from './dialect.js';

/**
 * Hourly rollups of every numeric uplink field (domain/series/rollup-rules.ts), per thing and per deployment group,
 * kept up to date in the ingest transaction (store/batch-writer/rollup-batch.ts). Buckets are UTC hours of the message's
 * `tsmTs`; daily figures are folded from these rows at read time (docs/decisions.md, "Rollups").
 *
 * - `thing_rollups`: key (tuid, tsm_id, field, hour_start), the order a series read scans. `organization_id` is
 *   carried for expiry and for releasing a thing.
 * - `group_rollups`: key (organization_id, group_id, tsm_id, field, hour_start), over the things in the group when
 *   each message arrived (`messages.group_id`); `unassigned` for things in no group (no real group has that id).
 *
 * Per bucket: count, min, max, sum (so the mean), and the first and last value with their `tsmTs`, so a late or
 * out-of-order message corrects its bucket. On SQLite both tables are WITHOUT ROWID: the key is the table, one
 * B-tree per row written.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = isSqlite(db);
  const withFigures = <T extends string, C extends string>(table: CreateTableBuilder<T, C>) =>
    table
      .addColumn('tsm_id', 'integer', (c) => c.notNull())
      .addColumn('field', 'varchar(100)', (c) => c.notNull())
      .addColumn('hour_start', 'bigint', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addColumn('min', 'double precision', (c) => c.notNull())
      .addColumn('max', 'double precision', (c) => c.notNull())
      .addColumn('sum', 'double precision', (c) => c.notNull())
      .addColumn('first', 'double precision', (c) => c.notNull())
      .addColumn('first_ts', 'double precision', (c) => c.notNull())
      .addColumn('last', 'double precision', (c) => c.notNull())
      .addColumn('last_ts', 'double precision', (c) => c.notNull());

  let things = withFigures(
    db.schema
      .createTable('thing_rollups')
      .addColumn('tuid', 'varchar(64)', (c) => c.notNull())
      .addColumn('organization_id', 'varchar(40)', (c) => c.notNull()),
  ).addPrimaryKeyConstraint('thing_rollups_pkey', ['tuid', 'tsm_id', 'field', 'hour_start']);
  if (sqlite) things = things.modifyEnd(sql`without rowid`);
  await things.execute();

  let groups = withFigures(
    db.schema
      .createTable('group_rollups')
      .addColumn('organization_id', 'varchar(40)', (c) => c.notNull())
      .addColumn('group_id', 'varchar(64)', (c) => c.notNull()),
  ).addPrimaryKeyConstraint('group_rollups_pkey', ['organization_id', 'group_id', 'tsm_id', 'field', 'hour_start']);
  if (sqlite) groups = groups.modifyEnd(sql`without rowid`);
  await groups.execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['group_rollups', 'thing_rollups']) await db.schema.dropTable(table).execute();
}
