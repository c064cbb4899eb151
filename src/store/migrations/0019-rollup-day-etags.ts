import { sql, type Kysely } from 'kysely';
import { isSqlite } from './dialect.js';

/**
 * `hours_etag` on the compacted days' figures (`thing_rollup_days`, `group_rollup_days`): an opaque token written
 * anew, at random, each time the compaction writes a day's packed hours, so a reader that kept what it made of a
 * day's hours (the REST series answer keeps them rendered, http/rest/rendered-days.ts) can tell from the small
 * figures row alone that the day is still the same, without reading the 1.7 kB of packed hours again (which SQLite
 * keeps on an overflow page of their own). Random rather than a digest: a day deleted and written again later gets
 * a new token all the same, and neither store needs a hash function. Existing days get one each here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const token = isSqlite(db) ? sql`lower(hex(randomblob(16)))` : sql`md5(random()::text || clock_timestamp()::text || ctid::text)`;
  for (const table of ['thing_rollup_days', 'group_rollup_days']) {
    await db.schema.alterTable(table).addColumn('hours_etag', 'varchar(36)').execute();
    await sql`update ${sql.table(table)} set hours_etag = ${token}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['thing_rollup_days', 'group_rollup_days']) await db.schema.alterTable(table).dropColumn('hours_etag').execute();
}
