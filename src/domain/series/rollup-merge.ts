import { extractNumericFields, hourStartOf } from './rollup-rules.js';
import type { HourlyRollup, RollupFigures } from './series-types.js';

/** A bucket's figures from its first reading. */
export function firstReading(ts: number, value: number): RollupFigures {
  return { count: 1, min: value, max: value, sum: value, first: value, firstTs: ts, last: value, lastTs: ts };
}

/**
 * Adds one reading to a bucket. Ties on time keep the reading added first as `first` and take the one added last
 * as `last`: the same rule as mergeFigures, so folding readings one by one or in batches gives the same answer.
 */
export function addReading(figures: RollupFigures, ts: number, value: number): void {
  figures.count += 1;
  if (value < figures.min) figures.min = value;
  if (value > figures.max) figures.max = value;
  figures.sum += value;
  if (ts < figures.firstTs) {
    figures.first = value;
    figures.firstTs = ts;
  }
  if (ts >= figures.lastTs) {
    figures.last = value;
    figures.lastTs = ts;
  }
}

/** Readings (oldest first) of one field as hourly buckets, oldest first. */
export function hoursOfReadings(readings: readonly { ts: number; value: number }[]): HourlyRollup[] {
  const hours: HourlyRollup[] = [];
  for (const { ts, value } of readings) {
    const hourStart = hourStartOf(ts);
    const current = hours.at(-1);
    if (current && current.hourStart === hourStart) addReading(current, ts, value);
    else hours.push({ hourStart, ...firstReading(ts, value) });
  }
  return hours;
}

/**
 * The hourly buckets of every rolled-up field of a thing's stored messages (oldest first, as JSON text), per message
 * id and field: what ingest's rollups hold for them, computed from the messages themselves.
 */
export function hoursOfMessages(messages: readonly { tsmTs: number; tsmId: number; body: string }[]) {
  const readings = new Map<string, { tsmId: number; field: string; readings: { ts: number; value: number }[] }>();
  for (const message of messages) {
    for (const { name, value } of extractNumericFields(JSON.parse(message.body) as Record<string, unknown>)) {
      const key = `${message.tsmId}\u0000${name}`;
      let series = readings.get(key);
      if (!series) readings.set(key, (series = { tsmId: message.tsmId, field: name, readings: [] }));
      series.readings.push({ ts: message.tsmTs, value });
    }
  }
  return [...readings.values()].map(({ tsmId, field, readings: values }) => ({ tsmId, field, hours: hoursOfReadings(values) }));
}

/**
 * How two sets of figures of the same bucket combine: counts and sums add, extremes widen, `first` moves only to an
 * earlier tsmTs and `last` to a later or equal one, so `later` (what arrived after) wins a tie on `last` and loses
 * one on `first`. The stores' upsert (rollupMergeSql) and ingest's pre-aggregation follow the same rule; this one
 * merges a compacted day's hour with a late hourly row, and folds hours into days.
 */
export function mergeFigures(into: RollupFigures, later: RollupFigures): void {
  into.count += later.count;
  if (later.min < into.min) into.min = later.min;
  if (later.max > into.max) into.max = later.max;
  into.sum += later.sum;
  if (later.firstTs < into.firstTs) {
    into.first = later.first;
    into.firstTs = later.firstTs;
  }
  if (later.lastTs >= into.lastTs) {
    into.last = later.last;
    into.lastTs = later.lastTs;
  }
}

/** A copy of a bucket's figures under another start (a day's figures start as its first hour's). */
export function figuresAt(hourStart: number, figures: RollupFigures): HourlyRollup {
  const { count, min, max, sum, first, firstTs, last, lastTs } = figures;
  return { hourStart, count, min, max, sum, first, firstTs, last, lastTs };
}

/**
 * Two runs of buckets, each oldest first with no start twice, as one run: a start present in both is merged with
 * `later`'s bucket as the later arrival. Neither input is changed; when one is empty the other is the answer.
 */
export function mergeRuns(earlier: readonly HourlyRollup[], later: readonly HourlyRollup[]): readonly HourlyRollup[] {
  if (later.length === 0) return earlier;
  if (earlier.length === 0) return later;
  const merged: HourlyRollup[] = [];
  let i = 0;
  let j = 0;
  while (i < earlier.length || j < later.length) {
    const a = earlier[i];
    const b = later[j];
    if (b === undefined || (a !== undefined && a.hourStart < b.hourStart)) {
      merged.push(a!);
      i++;
    } else if (a === undefined || b.hourStart < a.hourStart) {
      merged.push(b);
      j++;
    } else {
      const both = figuresAt(a.hourStart, a);
      mergeFigures(both, b);
      merged.push(both);
      i++;
      j++;
    }
  }
  return merged;
}

/** Buckets (oldest first) folded per bucket of `size` seconds (a UTC day: 86400), each starting at its bucket's start. */
export function foldInto(size: number, buckets: readonly HourlyRollup[]): HourlyRollup[] {
  const folded: HourlyRollup[] = [];
  for (const bucket of buckets) {
    const start = Math.floor(bucket.hourStart / size) * size;
    const current = folded.at(-1);
    if (current && current.hourStart === start) mergeFigures(current, bucket);
    else folded.push(figuresAt(start, bucket));
  }
  return folded;
}
