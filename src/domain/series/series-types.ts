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
  /** The points, oldest first, in runs (seriesPoints gives them as one list). */
  runs: PointRun[];
}

/**
 * Consecutive points of a series. A run the store can vouch for carries an `etag` that changes whenever its points
 * would: a whole compacted day untouched by later messages (a token written anew with each change of the day), a
 * thing's raw messages of one hour (their keys). What a caller makes of its points holds as long as the etag does.
 * A run whose etag the caller said it holds (KnownRuns) comes as its etag and its number of points alone.
 */
export type PointRun = { points: readonly SeriesPoint[]; etag: string | null } | { points: null; etag: string; count: number };

/** A thing's raw messages of one hour of a raw read, as the store reads them (see PointRun). */
export type RawRun = { messages: readonly RawMessage[]; etag: string } | { messages: null; etag: string; count: number };

/** The same for hourly buckets, as the store reads them. */
export type HourRun = { hours: readonly HourlyRollup[]; etag: string | null } | { hours: null; etag: string; count: number };

/** How many points the run of an etag has when the caller holds what it made of them before (see PointRun). */
export type KnownRuns = (etag: string) => number | undefined;

/** Nothing known: every run comes with its points. */
export const nothingKnown: KnownRuns = () => undefined;

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
