import type SqliteDatabase from 'better-sqlite3';
import { compactedDay, planDayChunks } from './compaction-plan.js';
import { compactionSql } from './compaction-sql.js';
import { decodeHours, encodeHours } from './hourly-codec.js';
import { rollupTableFamilies } from './rollup-tables.js';

/**
 * A compaction step on SQLite, in the uplink writer thread between batches (one short transaction): reads up to
 * `limit` hourly rows after where the previous step stopped, folds those of days before `beforeDayStart` into their
 * compacted days, and deletes them. Answers the rows it read; 0 when the pass over both tables is over. `restart`
 * begins a new pass (the position is the thread's own: a new thread simply starts over).
 */
export type SqliteCompactionStep = (job: { beforeDayStart: number; limit: number; restart: boolean }) => number;

export function prepareSqliteCompaction(connection: SqliteDatabase.Database): SqliteCompactionStep {
  const families = rollupTableFamilies.map((tables) => {
    const text = compactionSql(tables, 'sqlite');
    const prepare = (sqlText: string) => connection.prepare(sqlText);
    return {
      tables,
      firstPage: prepare(text.firstPage).raw(),
      nextPage: prepare(text.nextPage).raw(),
      selectDay: prepare(text.selectDay).pluck(),
      upsertDay: prepare(text.upsertDay),
      deleteHour: prepare(text.deleteHour),
    };
  });
  let family = 0;
  let after: unknown[] | null = null;

  const step = connection.transaction((beforeDayStart: number, limit: number): number => {
    let read = 0;
    while (read < limit && family < families.length) {
      const f = families[family]!;
      const room = limit - read;
      const rows = (after === null ? f.firstPage.all(room) : f.nextPage.all(...after, room)) as unknown[][];
      read += rows.length;
      for (const chunk of planDayChunks(rows, f.tables, beforeDayStart)) {
        const previous = f.selectDay.get(...chunk.key, chunk.dayStart) as Uint8Array | undefined;
        const { hours, day } = compactedDay(previous ? decodeHours(previous) : [], chunk);
        f.upsertDay.run(
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
        );
        for (const hour of chunk.hours) f.deleteHour.run(...chunk.key, hour.hourStart);
      }
      const last = rows.at(-1);
      if (rows.length < room || !last) {
        family++;
        after = null;
      } else {
        const keyLength = f.tables.key.length;
        after = [...last.slice(0, keyLength), last[keyLength + f.tables.carried.length]];
      }
    }
    return read;
  });

  return ({ beforeDayStart, limit, restart }) => {
    if (restart) {
      family = 0;
      after = null;
    }
    return step.immediate(beforeDayStart, limit);
  };
}
