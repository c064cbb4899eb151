import { rawValueOf } from './rollup-rules.js';
import type { HourlyRollup, HourRun, PointRun, RawMessage, Series, SeriesPoint } from './series-types.js';

/** A rollup bucket (an hour, or a day folded by the store) as a point: `t` is its start, `avg` the sum over the count. */
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
 * Raw points of `field` from stored messages (oldest first): the value the rollup rule reads from each message
 * (extractNumericFields, or the store's direct read where rawReadOf allows it, which gives the same), so a raw
 * point exists exactly when the message was counted in its rollup; messages without the field give no point.
 */
export function rawPoints(messages: readonly RawMessage[], field: string): SeriesPoint[] {
  const points: SeriesPoint[] = [];
  for (const message of messages) {
    const v = rawValueOf(message, field);
    if (v !== null) points.push({ t: Number(message.tsmTs), count: 1, min: v, max: v, avg: v, first: v, last: v });
  }
  return points;
}

/** A run of hourly buckets as a run of points (a known day stays its etag and count). */
export function pointRun(run: HourRun): PointRun {
  return run.hours === null ? { points: null, etag: run.etag, count: run.count } : { points: run.hours.map(hourPoint), etag: run.etag };
}

/** A series' points as one list, for a caller that gave no known days (every run has its points). */
export function seriesPoints(series: Pick<Series, 'runs'>): SeriesPoint[] {
  return series.runs.flatMap((run) => {
    if (run.points === null) throw new Error(`a run of the series is a day known to the caller (etag ${run.etag}): it has no points`);
    return run.points;
  });
}
