import { randomUUID } from 'node:crypto';
import { foldInto, mergeRuns } from '../../domain/series/rollup-merge.js';
import { daySeconds } from '../../domain/series/rollup-rules.js';
import type { HourlyRollup } from '../../domain/series/series-types.js';
import { decodeHours, encodeHours } from './hourly-codec.js';
import type { RollupTables } from './rollup-tables.js';

/** One series' hourly rows of one UTC day, read by a compaction step, to fold into its compacted day. */
export interface DayChunk {
  key: unknown[];
  carried: unknown[];
  dayStart: number;
  /** Oldest first. */
  hours: HourlyRollup[];
}

/**
 * A page of hourly rows in key order, each `[...key, ...carried, hour_start, ...figures]`, as day chunks: the rows
 * of days starting before `beforeDayStart` (days that are over), grouped by series and day. Rows of later days are
 * left where they are. A day cut by the page's end is simply finished by the next page (compacting merges).
 */
export function planDayChunks(rows: readonly unknown[][], tables: RollupTables, beforeDayStart: number): DayChunk[] {
  const keyLength = tables.key.length;
  const hourAt = keyLength + tables.carried.length;
  const chunks: DayChunk[] = [];
  for (const row of rows) {
    const hourStart = Number(row[hourAt]);
    const dayStart = Math.floor(hourStart / daySeconds) * daySeconds;
    if (dayStart >= beforeDayStart) continue;
    const key = row.slice(0, keyLength);
    const hour = hourOf(hourStart, row.slice(hourAt + 1));
    const current = chunks.at(-1);
    if (current && current.dayStart === dayStart && sameKey(current.key, key)) current.hours.push(hour);
    else chunks.push({ key, carried: row.slice(keyLength, hourAt), dayStart, hours: [hour] });
  }
  return chunks;
}

/**
 * A chunk folded into what its day held before (`previous`, its packed hours; none for a new day), as the two rows
 * compactionSql's `upsertDays` and `upsertDayHours` write. The day's figures carry a new `hours_etag` (migration
 * 0019): its packed hours change, so what a reader kept of them must not be taken for them any more.
 */
export function dayRows(chunk: DayChunk, previous: Uint8Array | undefined): { day: unknown[]; hours: unknown[] } {
  // The hourly rows arrived after the compacted ones (late messages): they are the later arrivals of a shared hour.
  const hours = mergeRuns(previous ? decodeHours(previous) : [], chunk.hours);
  const day = foldInto(daySeconds, hours)[0]!;
  const key = [...chunk.key, chunk.dayStart, ...chunk.carried];
  return {
    day: [...key, hours.length, randomUUID(), day.count, day.min, day.max, day.sum, day.first, day.firstTs, day.last, day.lastTs],
    hours: [...key, encodeHours(hours)],
  };
}

/** Where the next page of hourly rows starts: after the last row's key and hour (rows as planDayChunks takes them). */
export function pageCursor(rows: readonly unknown[][], tables: RollupTables): unknown[] | undefined {
  const last = rows.at(-1);
  const keyLength = tables.key.length;
  return last && [...last.slice(0, keyLength), last[keyLength + tables.carried.length]];
}

function hourOf(hourStart: number, figures: readonly unknown[]): HourlyRollup {
  const [count, min, max, sum, first, firstTs, last, lastTs] = figures.map(Number) as number[];
  return { hourStart, count: count!, min: min!, max: max!, sum: sum!, first: first!, firstTs: firstTs!, last: last!, lastTs: lastTs! };
}

function sameKey(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.every((value, i) => value === b[i]);
}
