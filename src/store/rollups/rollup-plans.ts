import { mergeRuns } from '../../domain/series/rollup-merge.js';
import { daySeconds, floorTo } from '../../domain/series/rollup-rules.js';
import type { HourlyRollup, HourRun, RollupCounts, RollupRange, SeriesSubject } from '../../domain/series/series-types.js';
import { dayReadPlans } from './day-runs.js';
import { decodeHours } from './hourly-codec.js';
import { assembleRuns, etagsToAsk, lastHourOfDay, planCompactedDays } from './hour-runs.js';
import { rawReadPlans } from './raw-reads.js';
import { knownCounts, select, type Plan } from './read-plan.js';
import { figuresOf, seriesKeyOf, toHourly, type FiguresRow } from './rollup-tables.js';

/**
 * Every read plan of a series (see rollupsStore), by name: what a SQLite reader thread runs when the main thread
 * names a plan and gives its arguments (plain values, cloned between threads), and what the store runs itself
 * otherwise. Each plan asks which runs its caller holds (knownCounts) instead of being given a function.
 */
export function rollupPlans(dialect: 'sqlite' | 'postgres') {
  const { rawMessagesPlan, rawTail, rawRunsPlan } = rawReadPlans(dialect);
  const { dayRunsPlan } = dayReadPlans(dialect, rawTail);

  function* hourRunsPlan(subject: SeriesSubject, range: RollupRange): Plan<HourRun[]> {
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
    const compacted = dayRows.map(([dayStart, hours, etag]) => ({ dayStart: Number(dayStart), hours: Number(hours), etag }));
    const asked = etagsToAsk(compacted, range, later);
    const counts = yield* knownCounts(asked);
    const held = new Map(asked.flatMap((etag, index) => (counts[index] === null ? [] : [[etag, counts[index]!] as const])));
    const days = planCompactedDays(compacted, range, later, (etag) => held.get(etag));
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

  /**
   * How many points each bucket would give (see RollupCounts); raw counted from `rawFromHour` on. Counted per day
   * over both tiers: a compacted day by its columns, or by its hours where the range or `rawFromHour` cuts it. An
   * hour both compacted and late in the hourly table counts twice (an upper bound, as raw counts are).
   */
  function* countsPlan(subject: SeriesSubject, range: RollupRange, rawFromHour: number): Plan<RollupCounts> {
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
  }

  return { hourRunsPlan, dayRunsPlan, countsPlan, rawRunsPlan, rawMessagesPlan };
}

export type RollupPlans = ReturnType<typeof rollupPlans>;
/** A plan's name, as the main thread sends it to a reader thread. */
export type RollupPlanName = keyof RollupPlans;

/** Starts the plan `name` with `args` (as the store gives them; a reader thread gets them from the main thread). */
export function startPlan(plans: RollupPlans, name: string, args: readonly unknown[]): Plan<unknown> {
  if (!Object.hasOwn(plans, name)) throw new Error(`no read plan is named ${name}`);
  return (plans[name as RollupPlanName] as (...planArgs: readonly unknown[]) => Plan<unknown>)(...args);
}
