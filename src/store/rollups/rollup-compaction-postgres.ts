import type { Kysely } from 'kysely';
import { withPlaceholders } from '../portable-sql.js';
import type { Schema } from '../schema.js';
import { compactedDay, planDayChunks } from './compaction-plan.js';
import { compactionSql } from './compaction-sql.js';
import { decodeHours, encodeHours } from './hourly-codec.js';
import { rollupTableFamilies } from './rollup-tables.js';

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
          const [previous] = (await run(text.selectDay, [...chunk.key, chunk.dayStart])).rows;
          const { hours, day } = compactedDay(previous ? decodeHours(previous.hourly as Uint8Array) : [], chunk);
          await run(text.upsertDay, [
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
            encodeHours(hours),
          ]);
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
