import type { Kysely } from 'kysely';
import { withPlaceholders } from '../portable-sql.js';
import type { Schema } from '../schema.js';
import { compactedDay, planDayChunks, type DayChunk } from './compaction-plan.js';
import { compactionSql } from './compaction-sql.js';
import { decodeHours, encodeHours } from './hourly-codec.js';
import { dayChunksOfRaw, pendingThingsSql, rawRowsSql, stepEnd, type RawRow } from './raw-compaction-plan.js';
import { figureColumns, rollupTableFamilies, thingRollupTables, type RollupTables } from './rollup-tables.js';

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
        const chunks = planDayChunks(rows, tables, beforeDayStart);
        await writeDays(trx, tables, chunks);
        // Exactly the rows read and locked, not a range a newcomer could fall in.
        const moved = chunks.flatMap((chunk) => chunk.hours.map((hour) => [...chunk.key, hour.hourStart]));
        if (moved.length > 0)
          await run(
            `delete from ${tables.hours} where (${[...tables.key, 'hour_start'].join(', ')}) in (select * from unnest(${[...tables.keyTypes, 'bigint'].map((cast) => `?::${cast}[]`).join(', ')}))`,
            [...tables.key, 'hour_start'].map((_, i) => moved.map((values) => values[i])),
          );
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

/**
 * Folds day chunks (each series and day at most once) into their compacted days in the caller's transaction: the
 * days' packed hours read in one statement, merged, and both tables written with one `unnest` upsert each, so a
 * page costs three round trips whatever its number of days.
 */
async function writeDays(trx: Kysely<Schema>, tables: RollupTables, chunks: readonly DayChunk[]): Promise<void> {
  if (chunks.length === 0) return;
  const { key, carried, keyTypes, carriedTypes } = tables;
  const keyOf = (values: readonly unknown[]) => values.map(String).join('\u0000');
  const column = (i: number) => chunks.map((chunk) => chunk.key[i]);
  const keyArrays = [...key.map((_, i) => column(i)), chunks.map((chunk) => chunk.dayStart)];
  const keyCasts = [...keyTypes, 'bigint'];
  const unnest = (casts: readonly string[]) => `unnest(${casts.map((cast) => `?::${cast}[]`).join(', ')})`;
  const dayKey = [...key, 'day_start'];
  const { rows: existing } = await withPlaceholders<Record<string, unknown>>(
    `select ${dayKey.join(', ')}, hourly from ${tables.dayHours} where (${dayKey.join(', ')}) in (select * from ${unnest(keyCasts)})`,
    keyArrays,
  ).execute(trx);
  const previous = new Map(existing.map((row) => [keyOf(dayKey.map((c) => row[c])), row.hourly as Uint8Array]));
  const days = chunks.map((chunk) => {
    const packed = previous.get(keyOf([...chunk.key, chunk.dayStart]));
    return compactedDay(packed ? decodeHours(packed) : [], chunk);
  });
  const carriedArrays = carried.map((_, i) => chunks.map((chunk) => chunk.carried[i]));
  const upsert = (table: string, columns: readonly string[], casts: readonly string[], arrays: readonly unknown[][]) =>
    withPlaceholders(
      `insert into ${table} (${columns.join(', ')}) select * from ${unnest(casts)}
       on conflict (${dayKey.join(', ')}) do update set ${columns
         .filter((c) => !dayKey.includes(c))
         .map((c) => `${c} = excluded.${c}`)
         .join(', ')}`,
      arrays,
    ).execute(trx);
  await upsert(
    tables.days,
    [...dayKey, ...carried, 'hours', ...figureColumns],
    [...keyCasts, ...carriedTypes, 'int', 'bigint', ...figureColumns.slice(1).map(() => 'float8')],
    [
      ...keyArrays,
      ...carriedArrays,
      days.map((d) => d.hours.length),
      days.map((d) => d.day.count),
      days.map((d) => d.day.min),
      days.map((d) => d.day.max),
      days.map((d) => d.day.sum),
      days.map((d) => d.day.first),
      days.map((d) => d.day.firstTs),
      days.map((d) => d.day.last),
      days.map((d) => d.day.lastTs),
    ],
  );
  await upsert(
    tables.dayHours,
    [...dayKey, ...carried, 'hourly'],
    [...keyCasts, ...carriedTypes, 'bytea'],
    [...keyArrays, ...carriedArrays, days.map((d) => encodeHours(d.hours))],
  );
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
