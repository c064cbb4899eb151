import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import {
  nothingKnown,
  type HourlyRollup,
  type HourRun,
  type KnownRuns,
  type RollupCounts,
  type RollupRange,
  type SeriesSubject,
} from '../domain/series/series-types.js';
import { mergeRuns } from '../domain/series/rollup-merge.js';
import { daySeconds, floorTo } from '../domain/series/rollup-rules.js';
import { decodeHours } from './rollups/hourly-codec.js';
import { assembleRuns, lastHourOfDay, planCompactedDays } from './rollups/hour-runs.js';
import { rawReadPlans } from './rollups/raw-reads.js';
import { planRunner, select, type Plan } from './rollups/read-plan.js';
import { figuresOf, groupRollupTables, seriesKeyOf, thingRollupTables, toHourly, type FiguresRow } from './rollups/rollup-tables.js';
import { dayReadPlans } from './rollups/day-runs.js';
import type { Schema } from './schema.js';
import type { SqliteDirectReads } from './sqlite-direct-reads.js';

export type RollupsStore = ReturnType<typeof rollupsStore>;

/**
 * Reads of the rollups and of raw messages for series, and their expiry. Three tiers answer a series: compacted
 * days (migration 0017, written by the retention sweep's compaction, store/rollups/), hourly rows (groups', and
 * things' late messages, written in the ingest transaction, store/batch-writer/rollup-batch.ts), and a thing's raw
 * messages from its rollup watermark on (migration 0018), folded when read. Every read combines them, in one
 * snapshot.
 */
export function rollupsStore(db: Kysely<Schema>, dialect: 'sqlite' | 'postgres', directReads: SqliteDirectReads | undefined) {
  const sqlite = dialect === 'sqlite';
  const { inSnapshot, runOn } = planRunner(db, dialect, directReads);
  const { rawMessagesPlan, rawTail, rawRunsPlan } = rawReadPlans(dialect);
  const { dayRunsPlan } = dayReadPlans(dialect, rawTail);
  function* hourRunsPlan(subject: SeriesSubject, range: RollupRange, known: KnownRuns): Plan<HourRun[]> {
    const key = seriesKeyOf(subject, range);
    const dayRows = yield* select<[number, number, string | null]>(
      `select day_start, hours, hours_etag from ${key.days} where ${key.where} and day_start >= ? and day_start <= ? order by day_start`,
      [...key.parameters, floorTo(range.fromHour, daySeconds), range.toHour],
    );
    const hot = yield* select<FiguresRow>(
      `select ${figuresOf('hour_start')} from ${key.table} where ${key.where} and hour_start >= ? and hour_start <= ? order by hour_start`,
      [...key.parameters, range.fromHour, range.toHour],
    );
    const later = mergeRuns(hot.map(toHourly), yield* rawTail(subject, range));
    const days = planCompactedDays(
      dayRows.map(([dayStart, hours, etag]) => ({ dayStart: Number(dayStart), hours: Number(hours), etag })),
      range,
      later,
      known,
    );
    const read = days.filter((day) => day.use !== 'known');
    const packed = new Map<number, Uint8Array>();
    // A few days (the range's edges, a day with late messages, one compacted since the caller last asked) by key;
    // more (nothing known yet) in one range read.
    const each = read.length <= 8;
    for (const [first, last] of each
      ? read.map((day) => [day.dayStart, day.dayStart])
      : read.length > 0
        ? [[read[0]!.dayStart, read.at(-1)!.dayStart]]
        : [])
      for (const [dayStart, hourly] of yield* select<[number, Uint8Array]>(
        `select day_start, hourly from ${key.dayHours} where ${key.where} and day_start >= ? and day_start <= ?`,
        [...key.parameters, first, last],
      ))
        packed.set(Number(dayStart), hourly);
    const merged: HourlyRollup[] = [];
    const whole = [];
    for (const day of days) {
      if (day.use === 'known') whole.push({ dayStart: day.dayStart, etag: day.etag!, count: day.hours, hours: null });
      else if (day.use === 'kept')
        whole.push({ dayStart: day.dayStart, etag: day.etag!, count: day.hours, hours: decodeHours(packed.get(day.dayStart)!) });
      else decodeHours(packed.get(day.dayStart)!, range.fromHour, range.toHour, merged);
    }
    return assembleRuns(whole, mergeRuns(merged, later));
  }

  return {
    /**
     * A subject's hourly buckets of one field, oldest first, in runs (see HourRun): the hours of its compacted days,
     * its hourly rows (a late hourly row merged into the compacted hour it shares) and a thing's hours from its raw
     * messages. A compacted day whole in the range and untouched by the later tiers is a run of its own with its
     * etag, and when `known` holds that etag its packed hours are not even read: a year of hours is 365 of them, each
     * on an overflow page of its own in SQLite, ten times the figures rows that say whether they changed.
     */
    hourRuns: (subject: SeriesSubject, range: RollupRange, known: KnownRuns): Promise<HourRun[]> =>
      inSnapshot(() => hourRunsPlan(subject, range, known)),

    /** The same as one list of buckets. */
    hours: async (subject: SeriesSubject, range: RollupRange): Promise<readonly HourlyRollup[]> =>
      (await inSnapshot(() => hourRunsPlan(subject, range, nothingKnown))).flatMap((run) => run.hours ?? []),

    /**
     * A subject's days of one field (UTC), oldest first, in runs (see HourRun); `range.fromHour` is a day's start.
     * A compacted day answers with its own figures (its hours only when `toHour` cuts it), merged with the later
     * tiers' hours folded into days. Consecutive days that only their compacted rows answer are a run of their own,
     * with an etag made of their tokens, and when `known` holds it their figures are not read: a year of days took
     * longer to hand over from SQLite than all the rest of its answer (see day-runs.ts).
     */
    dayRuns: (subject: SeriesSubject, range: RollupRange, known: KnownRuns): Promise<HourRun[]> =>
      inSnapshot(() => dayRunsPlan(subject, range, known)),

    /** The same as one list of days. */
    days: async (subject: SeriesSubject, range: RollupRange): Promise<readonly HourlyRollup[]> =>
      (await inSnapshot(() => dayRunsPlan(subject, range, nothingKnown))).flatMap((run) => run.hours ?? []),

    /**
     * How many points each bucket would give (see RollupCounts); raw counted from `rawFromHour` on. Counted per
     * day over both tiers: a compacted day by its columns, or by its hours where the range or `rawFromHour` cuts
     * it. An hour both compacted and late in the hourly table counts twice (an upper bound, as raw counts are).
     */
    counts: (subject: SeriesSubject, range: RollupRange, rawFromHour: number): Promise<RollupCounts> =>
      inSnapshot(function* () {
        const key = seriesKeyOf(subject, range);
        const cut = `day_start < ? or day_start + ${lastHourOfDay} > ? or (day_start < ? and day_start + ${lastHourOfDay} >= ?)`;
        const days = yield* select<[number, number, number]>(
          `select day_start, hours, count from ${key.days} where ${key.where} and day_start >= ? and day_start <= ?`,
          [...key.parameters, floorTo(range.fromHour, daySeconds), range.toHour],
        );
        // Days the range or rawFromHour cuts are counted by their hours.
        const cuts = yield* select<[number, Uint8Array]>(
          `select day_start, hourly from ${key.dayHours} where ${key.where} and day_start >= ? and day_start <= ? and (${cut})`,
          [...key.parameters, floorTo(range.fromHour, daySeconds), range.toHour, range.fromHour, range.toHour, rawFromHour, rawFromHour],
        );
        const cutHours = new Map(cuts.map(([dayStart, hourly]) => [Number(dayStart), hourly]));
        const hot = yield* select<[number | string, number | string, number | string]>(
          `select hour_start / 86400, count(*), sum(case when hour_start >= ? then count else 1 end)
           from ${key.table} where ${key.where} and hour_start >= ? and hour_start <= ? group by hour_start / 86400`,
          [rawFromHour, ...key.parameters, range.fromHour, range.toHour],
        );
        const perDay = new Map<number, { hours: number; raw: number }>();
        const add = (day: number, hours: number, raw: number) => {
          const counted = perDay.get(day);
          if (counted) {
            counted.hours += hours;
            counted.raw += raw;
          } else if (hours > 0) perDay.set(day, { hours, raw });
        };
        for (const [dayStart, hours, count] of days) {
          const day = Number(dayStart) / daySeconds;
          const hourly = cutHours.get(Number(dayStart));
          if (hourly === undefined) add(day, Number(hours), Number(dayStart) >= rawFromHour ? Number(count) : Number(hours));
          else {
            const inRange = decodeHours(hourly, range.fromHour, range.toHour);
            add(
              day,
              inRange.length,
              inRange.reduce((raw, hour) => raw + (hour.hourStart >= rawFromHour ? hour.count : 1), 0),
            );
          }
        }
        for (const [day, hours, raw] of hot) add(Number(day), Number(hours), Number(raw));
        for (const hour of yield* rawTail(subject, range))
          add(Math.floor(hour.hourStart / daySeconds), 1, hour.hourStart >= rawFromHour ? hour.count : 1);
        let hours = 0;
        let rawPoints = 0;
        for (const counted of perDay.values()) {
          hours += counted.hours;
          rawPoints += counted.raw;
        }
        return { hours, days: perDay.size, rawPoints };
      }),

    /** A thing's raw messages of one id in [from, to] per hour (see rawRunsPlan), in one snapshot. */
    rawRuns: (
      subject: { tuid: string },
      read: { tsmId: number; field: string; from: number; to: number; limit: number },
      known: KnownRuns,
    ) => inSnapshot(() => rawRunsPlan(subject, read, known)),

    /**
     * A subject's stored messages of one id with tsmTs in [from, to], oldest first, at most `limit` (see
     * rawMessagesPlan). One statement sees one state by itself: on PostgreSQL no transaction around it.
     */
    rawMessages: (subject: SeriesSubject, read: { tsmId: number; field: string | null; from: number; to: number; limit: number }) =>
      sqlite ? inSnapshot(() => rawMessagesPlan(subject, read)) : runOn(db, rawMessagesPlan(subject, read)),

    /**
     * Deletes at most `limit` rollup rows (things' and groups', hourly and compacted days) of an organization for
     * hours starting before `beforeHourStart` (a compacted day once all its hours are); answers how many went. For
     * the retention sweep, which calls it until it answers 0.
     */
    async expire(organizationId: string, beforeHourStart: number, limit: number): Promise<number> {
      let removed = 0;
      for (const tables of [groupRollupTables, thingRollupTables]) {
        for (const [table, start, before] of [
          [tables.dayHours, 'day_start', beforeHourStart - daySeconds + 1],
          [tables.days, 'day_start', beforeHourStart - daySeconds + 1],
          [tables.hours, 'hour_start', beforeHourStart],
        ] as const) {
          if (removed >= limit) return removed;
          const key = [...tables.key, start].join(', ');
          const result = await sql`delete from ${sql.table(table)} where (${sql.raw(key)}) in (
              select ${sql.raw(key)} from ${sql.table(table)}
              where organization_id = ${organizationId} and ${sql.ref(start)} < ${before} limit ${limit - removed})`.execute(db);
          removed += Number(result.numAffectedRows ?? 0);
        }
      }
      return removed;
    },
  };
}
