import { sql, type Kysely } from 'kysely';
import { isSqlite } from './dialect.js';

/**
 * `things.rollup_watermark` (Unix seconds, an hour's start): a thing's rollups of hours before it are stored
 * (compacted days, and hourly rows for messages that came late); its messages from it on are rolled up from the raw
 * messages, at read time and by the sweep's compaction, which then moves the watermark on (docs/decisions.md,
 * "Thing rollups from raw messages"). Ingest writes a thing's hourly rollup only for a message older than the
 * watermark. New things start at 0: everything from raw. Existing things start after their newest message and after
 * now, since ingest has rolled up everything they stored so far.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('things')
    .addColumn('rollup_watermark', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  const now = Math.floor(Date.now() / 1000);
  const after = isSqlite(db)
    ? sql`cast(max(${now}, coalesce(last_ts, 0)) / 3600 as integer) * 3600 + 3600`
    : sql`(floor(greatest(${now}::float8, coalesce(last_ts, 0)) / 3600) * 3600 + 3600)::bigint`;
  await sql`update things set rollup_watermark = ${after}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('things').dropColumn('rollup_watermark').execute();
}
