import { daySeconds } from '../../domain/series/rollup-rules.js';
import type { HourlyRollup, HourRun, KnownRuns } from '../../domain/series/series-types.js';

/** Seconds from a day's start to its last hour's start. */
export const lastHourOfDay = 82_800;

/** A compacted day of the range, as its figures row tells it: its start, how many hours it holds, its etag. */
export interface CompactedDay {
  dayStart: number;
  hours: number;
  etag: string | null;
}

/**
 * How an hourly read takes each compacted day: `known` (the caller holds it: no hours read), `kept` (read and
 * answered as a run of its own, with its etag) or `merged` (read and merged with the later tiers). A day answers as
 * a run of its own only when it is whole in the range and nothing later (a late hourly row, a raw hour after the
 * thing's watermark) falls in it: then its hours are exactly what its etag stands for.
 */
export function planCompactedDays(
  days: readonly CompactedDay[],
  range: { fromHour: number; toHour: number },
  later: readonly HourlyRollup[],
  known: KnownRuns,
) {
  const whole = wholeDays(range, later);
  return days.map((day): CompactedDay & { use: 'known' | 'kept' | 'merged' } => {
    const use = !whole(day) || day.etag === null ? 'merged' : known(day.etag) !== undefined ? 'known' : 'kept';
    return { dayStart: day.dayStart, hours: day.hours, etag: day.etag, use };
  });
}

/** The etags planCompactedDays asks `known` about: those of the days that may answer as runs of their own. */
export function etagsToAsk(
  days: readonly CompactedDay[],
  range: { fromHour: number; toHour: number },
  later: readonly HourlyRollup[],
): string[] {
  const whole = wholeDays(range, later);
  return days.flatMap((day) => (whole(day) && day.etag !== null ? [day.etag] : []));
}

/** Whether a compacted day is whole in the range and untouched by the later tiers. */
function wholeDays(range: { fromHour: number; toHour: number }, later: readonly HourlyRollup[]) {
  const touched = new Set(later.map((hour) => Math.floor(hour.hourStart / daySeconds) * daySeconds));
  return (day: CompactedDay) =>
    day.dayStart >= range.fromHour && day.dayStart + lastHourOfDay <= range.toHour && !touched.has(day.dayStart);
}

/**
 * The runs of an hourly read, oldest first: each compacted day answered whole (known or kept, with its etag) as a
 * run of its own, and between them the other buckets (`merged`: hours of the other compacted days, already merged
 * with the later tiers and cut to the range) as plain runs.
 */
export function assembleRuns(
  whole: readonly { dayStart: number; etag: string; count: number; hours: readonly HourlyRollup[] | null }[],
  merged: readonly HourlyRollup[],
): HourRun[] {
  const runs: HourRun[] = [];
  let next = 0;
  const plainBefore = (start: number) => {
    const first = next;
    while (next < merged.length && merged[next]!.hourStart < start) next++;
    if (next > first) runs.push({ hours: merged.slice(first, next), etag: null });
  };
  for (const day of whole) {
    plainBefore(day.dayStart);
    runs.push(day.hours === null ? { hours: null, etag: day.etag, count: day.count } : { hours: day.hours, etag: day.etag });
  }
  plainBefore(Infinity);
  return runs;
}
