import type { Kysely } from 'kysely';
import { withPlaceholders } from '../portable-sql.js';
import type { Schema } from '../schema.js';
import { compactedDay, planDayChunks, type DayChunk } from './compaction-plan.js';
import { compactionSql } from './compaction-sql.js';
import { decodeHours, encodeHours } from './hourly-codec.js';
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
    const keyLength = tables.key.length;
    let after: unknown[] | null = null;
    while (!signal?.aborted) {
      const page: unknown[][] = await db.transaction().execute(async (trx) => {
        const run = (sqlText: string, parameters: readonly unknown[]) =>
          withPlaceholders<Record<string, unknown>>(sqlText, parameters).execute(trx);
        const rows = (after === null ? await run(text.firstPage, [limit]) : await run(text.nextPage, [...after, limit])).rows.map((row) =>
          Object.values(row),
        );
        for (const chunk of planDayChunks(rows, tables, beforeDayStart)) {
          await writeDay(trx, tables, chunk);
          await run(text.deleteHours, [...chunk.key, chunk.hours.map((hour) => hour.hourStart)]);
        }
        return rows;
      });
      scanned += page.length;
      const last = page.at(-1);
      if (page.length < limit || !last) break;
      after = [...last.slice(0, keyLength), last[keyLength + tables.carried.length]];
    }
  }
  return scanned;
}

/** Folds a day chunk into its compacted day (read, merged, written back) in the caller's transaction. */
async function writeDay(trx: Kysely<Schema>, tables: RollupTables, chunk: DayChunk): Promise<void> {
  const text = compactionSql(tables, 'postgres');
  const [previous] = (await withPlaceholders<{ hourly: Uint8Array }>(text.selectDay, [...chunk.key, chunk.dayStart]).execute(trx)).rows;
  const { hours, day } = compactedDay(previous ? decodeHours(previous.hourly) : [], chunk);
  await withPlaceholders(text.upsertDay, [
    ...chunk.key,
    chunk.dayStart,
    ...chunk.carried,
    hours.length,
    day.count,
    day.min,
    day.max,
    day.sum,
    day.first,
    day.firstTs,
    day.last,
    day.lastTs,
  ]).execute(trx);
  await withPlaceholders(text.upsertDayHours, [...chunk.key, chunk.dayStart, ...chunk.carried, encodeHours(hours)]).execute(trx);
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
          for (const chunk of dayChunksOfRaw({ tuid, organizationId, watermark }, rows)) await writeDay(trx, thingRollupTables, chunk);
          await withPlaceholders('update things set rollup_watermark = ? where tuid = ?', [end.until, tuid]).execute(trx);
          read += rows.length;
          return end.until >= cutoff;
        });
      }
      afterTuid = tuid;
    }
  }
}
