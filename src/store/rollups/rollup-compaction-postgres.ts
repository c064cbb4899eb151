import type { Kysely } from 'kysely';
import { withPlaceholders } from '../portable-sql.js';
import type { Schema } from '../schema.js';
import { dayRows, pageCursor, planDayChunks, type DayChunk } from './compaction-plan.js';
import { columnsOf, compactionSql } from './compaction-sql.js';
import { dayChunksOfRaw, pendingThingsSql, rawRowsSql, stepEnd, type RawRow } from './raw-compaction-plan.js';
import { rollupTableFamilies, thingRollupTables, type RollupTables } from './rollup-tables.js';

/**
 * One pass of compaction on PostgreSQL: pages of `limit` hourly rows in key order, each in its own short
 * transaction that locks the page's rows (a late message's upsert of one of them waits for the commit, then finds
 * it gone and inserts a new hourly row, merged at read time), folds those of days before `beforeDayStart` into
 * their compacted days and deletes them. One instance runs it (the retention sweep's lease). Answers the hourly
 * rows it went through.
 */
export async function compactPostgresRollups(db: Kysely<Schema>, beforeDayStart: number, limit: number, signal?: AbortSignal) {
  let scanned = 0;
  for (const tables of rollupTableFamilies) {
    const text = compactionSql(tables, 'postgres');
    let after: unknown[] | null = null;
    while (!signal?.aborted) {
      const page: unknown[][] = await db.transaction().execute(async (trx) => {
        const run = (sqlText: string, parameters: readonly unknown[]) =>
          withPlaceholders<Record<string, unknown>>(sqlText, parameters).execute(trx);
        const rows = (after === null ? await run(text.firstPage, [limit]) : await run(text.nextPage, [...after, limit])).rows.map((row) =>
          Object.values(row),
        );
        const chunks = planDayChunks(rows, tables, beforeDayStart);
        await writeDays(trx, tables, chunks);
        const moved = chunks.flatMap((chunk) => chunk.hours.map((hour) => [...chunk.key, hour.hourStart]));
        if (moved.length > 0) await run(text.deleteHours, columnsOf(moved));
        return rows;
      });
      scanned += page.length;
      const cursor = pageCursor(page, tables);
      if (page.length < limit || !cursor) break;
      after = cursor;
    }
  }
  return scanned;
}

/**
 * Folds day chunks (each series and day at most once) into their compacted days in the caller's transaction: the
 * days' packed hours read in one statement, merged, and both tables written with one `unnest` upsert each, so a
 * page costs three round trips whatever its number of days.
 */
async function writeDays(trx: Kysely<Schema>, tables: RollupTables, chunks: readonly DayChunk[]): Promise<void> {
  if (chunks.length === 0) return;
  const text = compactionSql(tables, 'postgres');
  const run = (sqlText: string, parameters: readonly unknown[]) =>
    withPlaceholders<Record<string, unknown>>(sqlText, parameters).execute(trx);
  const keyOf = (values: readonly unknown[]) => values.map(String).join('\u0000');
  const { rows: existing } = await run(text.selectDays, columnsOf(chunks.map((chunk) => [...chunk.key, chunk.dayStart])));
  const previous = new Map(existing.map((row) => [keyOf(Object.values(row).slice(0, -1)), row.hourly as Uint8Array]));
  const rows = chunks.map((chunk) => dayRows(chunk, previous.get(keyOf([...chunk.key, chunk.dayStart]))));
  await run(text.upsertDays, columnsOf(rows.map((row) => row.day)));
  await run(text.upsertDayHours, columnsOf(rows.map((row) => row.hours)));
}

/**
 * Things' raw messages from their rollup watermarks up to `cutoff` (an hour's start) folded into their compacted
 * days, one thing (or a part of a busy one's, up to about `limit` messages) per short transaction that first locks
 * the thing's row as ingest does (`for no key update`): a batch storing the thing's messages meanwhile either
 * committed before (its messages are read here) or reads the moved watermark after this commits (and rolls its
 * older messages up itself, as late). Answers the messages read.
 */
export async function compactPostgresRawRollups(db: Kysely<Schema>, cutoff: number, limit: number, signal?: AbortSignal) {
  let read = 0;
  let afterTuid = '';
  for (;;) {
    const { rows: things } = await withPlaceholders<{ tuid: string; organization_id: string }>(pendingThingsSql, [
      afterTuid,
      cutoff,
      100,
    ]).execute(db);
    if (things.length === 0 || signal?.aborted) return read;
    for (const { tuid, organization_id: organizationId } of things) {
      for (let done = false; !done;) {
        if (signal?.aborted) return read;
        done = await db.transaction().execute(async (trx) => {
          const [locked] = (
            await withPlaceholders<{ watermark: string }>(
              'select rollup_watermark as watermark from things where tuid = ? for no key update',
              [tuid],
            ).execute(trx)
          ).rows;
          const watermark = Number(locked?.watermark ?? cutoff);
          if (watermark >= cutoff) return true;
          const readRows = async (before: number, rowLimit: number) =>
            (
              await withPlaceholders<Record<string, unknown>>(rawRowsSql('postgres'), [tuid, watermark, before, rowLimit]).execute(trx)
            ).rows.map((row) => Object.values(row) as RawRow);
          const end = stepEnd(await readRows(cutoff, limit + 1), limit, watermark, cutoff);
          const rows = end.rereadFirstHour ? await readRows(end.until, Number.MAX_SAFE_INTEGER) : end.rows;
          await writeDays(trx, thingRollupTables, dayChunksOfRaw({ tuid, organizationId, watermark }, rows));
          await withPlaceholders('update things set rollup_watermark = ? where tuid = ?', [end.until, tuid]).execute(trx);
          read += rows.length;
          return end.until >= cutoff;
        });
      }
      afterTuid = tuid;
    }
  }
}
