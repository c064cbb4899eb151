/** The bucket of a series point: a stored message (`raw`), a UTC hour, or a UTC day. */
export type SeriesBucket = 'raw' | '1h' | '1d';

/** What a caller may ask for: a bucket, or `auto` (the finest bucket giving at most `maxPoints`). */
export type RequestedBucket = SeriesBucket | 'auto';

/** One point of a series. For a raw point count is 1 and every figure is the value; `t` is its tsmTs. */
export interface SeriesPoint {
  /** Unix seconds: the bucket's start, or the message's tsmTs for a raw point. */
  t: number;
  count: number;
  min: number;
  max: number;
  avg: number;
  first: number;
  last: number;
}

/** A part of the asked range and the bucket that answered it (raw data may be gone before the raw horizon). */
export interface SeriesSegment {
  from: number;
  to: number;
  bucket: SeriesBucket;
}

export interface Series {
  tsmId: number;
  field: string;
  /** The bucket chosen (`auto` resolved); `segments` says which bucket answered which part. */
  bucket: SeriesBucket;
  segments: SeriesSegment[];
  points: SeriesPoint[];
}

/** The figures of one rollup bucket: what ingest folds and the stores keep, per hour. */
export interface RollupFigures {
  count: number;
  min: number;
  max: number;
  sum: number;
  first: number;
  firstTs: number;
  last: number;
  lastTs: number;
}

/** One rollup bucket as the store reads it: a stored hour, or a day the store folded from its hours (`hourStart`: the day's start). */
export interface HourlyRollup extends RollupFigures {
  hourStart: number;
}

/** Whose series: one thing, or a group of an organization (`null`: the things in no group). */
export type SeriesSubject = { tuid: string } | { organizationId: string; groupId: string | null };

/** A rollup range of one field: hours whose start lies in [fromHour, toHour]. */
export interface RollupRange {
  tsmId: number;
  field: string;
  fromHour: number;
  toHour: number;
}

/** How many points each bucket would give over a range (counted from the hourly rollups). */
export interface RollupCounts {
  /** Non-empty hours. */
  hours: number;
  /** Non-empty days. */
  days: number;
  /** Raw points from `rawFromHour` on plus one per hour before it (an upper bound: whole hours are counted). */
  rawPoints: number;
}

/**
 * A stored message of a raw series read: its tsmTs, and either the field's value read by the store (`value`, null
 * when the member is absent or not a number) or the body to parse (`body`, JSON text), never both.
 */
export interface RawMessage {
  tsmTs: number;
  value: number | null;
  body: string | null;
}

/**
 * The port to raw retention: Unix seconds before which an organization's raw messages may be gone (null: kept
 * forever). Series answer the part of a range before it from the rollups.
 */
export type RawHorizon = (organizationId: string) => Promise<number | null>;
