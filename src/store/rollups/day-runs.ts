import { createHash } from 'node:crypto';
import { foldInto, mergeRuns } from '../../domain/series/rollup-merge.js';
import { daySeconds, floorTo } from '../../domain/series/rollup-rules.js';
import type { HourlyRollup, HourRun, RollupRange, SeriesSubject } from '../../domain/series/series-types.js';
import { decodeHours } from './hourly-codec.js';
import { assembleRuns, lastHourOfDay } from './hour-runs.js';
import { knownCounts, select, type Plan } from './read-plan.js';
import { figuresOf, seriesKeyOf, toHourly, type FiguresRow } from './rollup-tables.js';

/** Days of a `1d` read, first and last day's start inclusive: `clean` when only their compacted rows answer them. */
export interface DaySpan {
  first: number;
  last: number;
  clean: boolean;
}

/** More spans than this and a read takes its days as one span (each clean span costs a statement of its own). */
const maxSpans = 17;

/**
 * The days from `firstDay` to `lastDay` cut into spans around the `touched` ones (sorted day starts: days a later
 * tier falls in, or that the range cuts): a run of touched days is a span, and so is each stretch between them,
 * `clean`. Too many spans (late messages scattered over many days) and the whole range is one span, not clean.
 */
export function daySpans(firstDay: number, lastDay: number, touched: readonly number[]): DaySpan[] {
  const spans: DaySpan[] = [];
  let next = firstDay;
  for (const day of touched) {
    if (day > next) spans.push({ first: next, last: day - daySeconds, clean: true });
    const previous = spans.at(-1);
    if (previous !== undefined && !previous.clean && previous.last === day - daySeconds) previous.last = day;
    else spans.push({ first: day, last: day, clean: false });
    next = day + daySeconds;
  }
  if (next <= lastDay) spans.push({ first: next, last: lastDay, clean: true });
  return spans.length > maxSpans ? [{ first: firstDay, last: lastDay, clean: false }] : spans;
}

/**
 * The read plan of a series at `1d` (see rollupsStore.dayRuns); `rawTail` is a thing's hours after its watermark. It
 * asks which clean spans the caller holds (see knownCounts).
 */
export function dayReadPlans(
  dialect: 'sqlite' | 'postgres',
  rawTail: (subject: SeriesSubject, range: RollupRange) => Plan<readonly HourlyRollup[]>,
) {
  const etagsInOrder = `${dialect === 'sqlite' ? 'group_concat' : 'string_agg'}(hours_etag, ',' order by day_start)`;

  function* dayRunsPlan(subject: SeriesSubject, range: RollupRange): Plan<HourRun[]> {
    const key = seriesKeyOf(subject, range);
    const [f, l] = [seriesKeyOf(subject, range, 'f.'), seriesKeyOf(subject, range, 'l.')];
    // Hourly rows folded in SQL, as counts and sums add, extremes widen, and since hours do not overlap a day's
    // first value is its earliest hour's first and its last value its latest hour's last (two key lookups per day).
    const hot = yield* select<FiguresRow>(
      `select d.day_start, d.count, d.min, d.max, d.sum, f.first, f.first_ts, l.last, l.last_ts
       from (select (hour_start / 86400) * 86400 as day_start, sum(count) as count, min(min) as min, max(max) as max, sum(sum) as sum,
                    min(hour_start) as first_hour, max(hour_start) as last_hour
             from ${key.table} where ${key.where} and hour_start >= ? and hour_start <= ? group by hour_start / 86400) d
       join ${key.table} f on ${f.where} and f.hour_start = d.first_hour
       join ${key.table} l on ${l.where} and l.hour_start = d.last_hour
       order by d.day_start`,
      [...key.parameters, range.fromHour, range.toHour, ...f.parameters, ...l.parameters],
    );
    const later = mergeRuns(hot.map(toHourly), foldInto(daySeconds, yield* rawTail(subject, range)));
    // The day `toHour` cuts (before its last hour) answers only its hours up to there, from its packed hours.
    const lastDay = floorTo(range.toHour, daySeconds);
    const cut = range.toHour < lastDay + lastHourOfDay;
    const touched = later.map((day) => day.hourStart);
    if (cut && touched.at(-1) !== lastDay) touched.push(lastDay);

    function* figuresIn(span: DaySpan) {
      const rows = yield* select<FiguresRow>(
        `select ${figuresOf('day_start')} from ${key.days} where ${key.where} and day_start >= ? and day_start <= ? order by day_start`,
        [...key.parameters, span.first, span.last],
      );
      return rows.map(toHourly);
    }

    const merged: HourlyRollup[] = [];
    const whole: { dayStart: number; etag: string; count: number; hours: readonly HourlyRollup[] | null }[] = [];
    for (const span of daySpans(range.fromHour, lastDay, touched)) {
      if (span.clean) {
        // A clean span's days are their compacted rows alone, and each row's token changes with it (migration
        // 0019): the tokens in order stand for the span's points, read only when the caller does not hold them.
        const [[dayCount, tokens, etags] = [0, 0, null]] = yield* select<[number | string, number | string, string | null]>(
          `select count(*) as days, count(hours_etag) as tokens, ${etagsInOrder} as etags from ${key.days} where ${key.where} and day_start >= ? and day_start <= ?`,
          [...key.parameters, span.first, span.last],
        );
        if (Number(dayCount) === 0) continue;
        if (Number(tokens) === Number(dayCount)) {
          const etag = `days:${createHash('sha256').update(etags!).digest('base64url')}`;
          const [count] = yield* knownCounts([etag]);
          whole.push({
            dayStart: span.first,
            etag,
            count: count ?? Number(dayCount),
            hours: count === null ? yield* figuresIn(span) : null,
          });
          continue;
        }
      }
      const days = yield* figuresIn(span);
      if (cut && span.last === lastDay && days.at(-1)?.hourStart === lastDay) {
        const [packed] = yield* select<[Uint8Array]>(`select hourly from ${key.dayHours} where ${key.where} and day_start = ?`, [
          ...key.parameters,
          lastDay,
        ]);
        if (packed) days.splice(-1, 1, ...foldInto(daySeconds, decodeHours(packed[0], -Infinity, range.toHour)));
      }
      merged.push(...days);
    }
    return assembleRuns(whole, mergeRuns(merged, later));
  }

  return { dayRunsPlan };
}
