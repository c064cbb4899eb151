import type SqliteDatabase from 'better-sqlite3';
import { dayRows, pageCursor, planDayChunks, type DayChunk } from './compaction-plan.js';
import { compactionSql } from './compaction-sql.js';
import { dayChunksOfRaw, pendingThingsSql, rawRowsSql, stepEnd, type PendingThing, type RawRow } from './raw-compaction-plan.js';
import { rollupTableFamilies, thingRollupTables, type RollupTables } from './rollup-tables.js';

/**
 * Steps of rollup compaction on SQLite, each one short transaction in the uplink writer thread between batches
 * (the thread keeps where a pass is; a new thread simply starts over). Each answers the rows it read; 0 when the
 * pass is over. `restart` begins a new pass.
 * - `hourly`: up to `limit` hourly rows after the previous step's, those of days before `before` folded into their
 *   compacted days and deleted.
 * - `raw`: things' raw messages from their rollup watermark up to `before` (an hour's start), up to about `limit`
 *   messages, folded into their compacted days; each thing's watermark moves to where its step ended.
 */
export type SqliteCompactionStep = (job: { tier: 'hourly' | 'raw'; before: number; limit: number; restart: boolean }) => number;

export function prepareSqliteCompaction(connection: SqliteDatabase.Database): SqliteCompactionStep {
  const hourly = prepareHourlyStep(connection);
  const raw = prepareRawStep(connection);
  return (job) => (job.tier === 'hourly' ? hourly(job) : raw(job));
}

/** Folds a day chunk into its compacted day (read, merged, written back). */
function dayWriter(connection: SqliteDatabase.Database, tables: RollupTables) {
  const text = compactionSql(tables, 'sqlite');
  const selectDay = connection.prepare(text.selectDays).raw();
  const upsertDay = connection.prepare(text.upsertDays);
  const upsertDayHours = connection.prepare(text.upsertDayHours);
  return (chunk: DayChunk) => {
    const previous = selectDay.get(...chunk.key, chunk.dayStart) as unknown[] | undefined;
    const rows = dayRows(chunk, previous?.at(-1) as Uint8Array | undefined);
    upsertDay.run(...rows.day);
    upsertDayHours.run(...rows.hours);
  };
}

function prepareHourlyStep(connection: SqliteDatabase.Database) {
  const families = rollupTableFamilies.map((tables) => {
    const text = compactionSql(tables, 'sqlite');
    return {
      tables,
      firstPage: connection.prepare(text.firstPage).raw(),
      nextPage: connection.prepare(text.nextPage).raw(),
      writeDay: dayWriter(connection, tables),
      deleteHour: connection.prepare(text.deleteHours),
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
        f.writeDay(chunk);
        for (const hour of chunk.hours) f.deleteHour.run(...chunk.key, hour.hourStart);
      }
      const cursor = pageCursor(rows, f.tables);
      if (rows.length < room || !cursor) {
        family++;
        after = null;
      } else after = cursor;
    }
    return read;
  });

  return ({ before, limit, restart }: { before: number; limit: number; restart: boolean }) => {
    if (restart) {
      family = 0;
      after = null;
    }
    return step.immediate(before, limit);
  };
}

function prepareRawStep(connection: SqliteDatabase.Database) {
  const pending = connection.prepare<[string, number, number], [string, string, number]>(pendingThingsSql).raw();
  const readRaw = connection.prepare<[string, number, number, number], RawRow>(rawRowsSql('sqlite')).raw();
  const setWatermark = connection.prepare<[number, string]>('update things set rollup_watermark = ? where tuid = ?');
  const writeDay = dayWriter(connection, thingRollupTables);
  // The last thing whose pass is complete: the next step looks after it.
  let afterTuid = '';

  const step = connection.transaction((cutoff: number, limit: number): number => {
    let read = 0;
    while (read < limit) {
      const things = pending.all(afterTuid, cutoff, 100).map(([tuid, organizationId, watermark]): PendingThing => ({
        tuid,
        organizationId,
        watermark: Number(watermark),
      }));
      if (things.length === 0) break;
      for (const thing of things) {
        const budget = Math.max(1000, limit - read);
        const first = readRaw.all(thing.tuid, thing.watermark, cutoff, budget + 1);
        const end = stepEnd(first, budget, thing.watermark, cutoff);
        const rows = end.rereadFirstHour ? readRaw.all(thing.tuid, thing.watermark, end.until, Number.MAX_SAFE_INTEGER) : end.rows;
        for (const chunk of dayChunksOfRaw(thing, rows)) writeDay(chunk);
        setWatermark.run(end.until, thing.tuid);
        read += Math.max(1, rows.length);
        // A thing left half-way is taken up again by the next step (its watermark is still before the cutoff).
        if (end.until < cutoff) return read;
        afterTuid = thing.tuid;
        if (read >= limit) return read;
      }
    }
    return read;
  });

  return ({ before, limit, restart }: { before: number; limit: number; restart: boolean }) => {
    if (restart) afterTuid = '';
    return step.immediate(before, limit);
  };
}
