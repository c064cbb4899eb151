import { dayStartOf, extractNumericFields } from './rollup-rules.js';
import type { HourlyRollup, RawMessage, SeriesPoint } from './series-types.js';

/** An hourly rollup as a point: `t` is the hour's start, `avg` the sum over the count. */
export function hourPoint(hour: HourlyRollup): SeriesPoint {
  return {
    t: hour.hourStart,
    count: hour.count,
    min: hour.min,
    max: hour.max,
    avg: hour.sum / hour.count,
    first: hour.first,
    last: hour.last,
  };
}

/**
 * Hourly rollups (oldest first) folded into UTC days: counts and sums add, extremes widen, first/last are the
 * values with the earliest/latest time (ties: the earlier hour's first, the later hour's last).
 */
export function dayPoints(hours: readonly HourlyRollup[]): SeriesPoint[] {
  const points: SeriesPoint[] = [];
  let day: (HourlyRollup & { t: number }) | undefined;
  const close = () => day && points.push({ ...hourPoint(day), t: day.t });
  for (const hour of hours) {
    const t = dayStartOf(hour.hourStart);
    if (!day || day.t !== t) {
      close();
      day = { ...hour, t };
      continue;
    }
    day.count += hour.count;
    day.sum += hour.sum;
    if (hour.min < day.min) day.min = hour.min;
    if (hour.max > day.max) day.max = hour.max;
    if (hour.firstTs < day.firstTs) {
      day.first = hour.first;
      day.firstTs = hour.firstTs;
    }
    if (hour.lastTs >= day.lastTs) {
      day.last = hour.last;
      day.lastTs = hour.lastTs;
    }
  }
  close();
  return points;
}

/**
 * Raw points of `field` from stored messages (oldest first): the value the rollup rule reads from each message
 * (extractNumericFields, or the store's direct read where rawReadOf allows it, which gives the same), so a raw
 * point exists exactly when the message was counted in its rollup; messages without the field give no point.
 */
export function rawPoints(messages: readonly RawMessage[], field: string): SeriesPoint[] {
  const points: SeriesPoint[] = [];
  for (const message of messages) {
    const v =
      message.body === null
        ? message.value
        : (extractNumericFields(JSON.parse(message.body) as Record<string, unknown>).find((f) => f.name === field)?.value ?? null);
    if (v !== null) points.push({ t: Number(message.tsmTs), count: 1, min: v, max: v, avg: v, first: v, last: v });
  }
  return points;
}
