import type { Principal } from '../auth/principal.js';
import type { DomainDeps } from '../domain-deps.js';
import { validationFailed, type FieldProblem } from '../errors.js';
import { requireGroupRef } from '../groups/group-id-rules.js';
import { groupNotFound } from '../groups/group-service.js';
import { requireThing } from '../things/thing-access.js';
import { daySeconds, floorTo, hourSeconds, rawReadOf, rollupLimits } from './rollup-rules.js';
import { hourPoint, pointRun, rawPoints } from './series-points.js';
import { runHeavyWork } from '../workload/heavy-work-gate.js';
import { stopIfAbandoned, type RequestWork } from '../workload/request-work.js';
import {
  nothingKnown,
  type KnownRuns,
  type PointRun,
  type RequestedBucket,
  type Series,
  type SeriesBucket,
  type SeriesPoint,
  type SeriesSegment,
  type SeriesSubject,
} from './series-types.js';

/** `maxPoints` of a series: 1 to 10000, 1000 when absent. */
export const seriesMaxPoints = { min: 1, max: 10_000, default: 1000 } as const;
export const seriesBuckets = ['raw', '1h', '1d', 'auto'] as const satisfies readonly RequestedBucket[];

/** What a series request carries, as the transport received it (checked here). */
export interface SeriesInput {
  tsmId: unknown;
  field: unknown;
  /** Unix seconds, inclusive. */
  from: unknown;
  to: unknown;
  bucket?: unknown;
  maxPoints?: unknown;
}

interface CheckedInput {
  tsmId: number;
  field: string;
  from: number;
  to: number;
  bucket: RequestedBucket;
  maxPoints: number;
}

export type SeriesDeps = Pick<DomainDeps, 'store' | 'rawHorizon' | 'heavyWork'>;

/**
 * A thing's series of one numeric field (SPEC section 9). NOT_FOUND for a thing the caller cannot see. `known`: the
 * compacted days whose points the caller holds (see PointRun); without, every run has its points. A heavy read:
 * under the caller's cap, and stopped between store reads once `work` is abandoned (workload/).
 */
export async function readThingSeries(
  deps: SeriesDeps,
  principal: Principal,
  input: SeriesInput & { tuid: string },
  known: KnownRuns = nothingKnown,
  work: RequestWork = {},
): Promise<Series & { tuid: string }> {
  const checked = checkSeriesInput(input);
  return runHeavyWork(deps, principal, work, async () => {
    await requireThing(deps, principal, input.tuid);
    return { tuid: input.tuid, ...(await readSeries(deps, principal.organizationId, { tuid: input.tuid }, checked, known, work)) };
  });
}

/**
 * A group's series of one numeric field, over the messages that arrived while their thing was in the group
 * (`unassigned`: in no group). NOT_FOUND for a group the caller cannot see, exactly as the group endpoints.
 */
export async function readGroupSeries(
  deps: SeriesDeps,
  principal: Principal,
  input: SeriesInput & { groupId: string },
  known: KnownRuns = nothingKnown,
  work: RequestWork = {},
): Promise<Series & { groupId: string | null }> {
  const groupId = requireGroupRef('groupId', input.groupId);
  const checked = checkSeriesInput(input);
  const { organizationId } = principal;
  return runHeavyWork(deps, principal, work, async () => {
    if (groupId !== null && !(await deps.store.groups.get(organizationId, groupId))) throw groupNotFound(groupId);
    return { groupId, ...(await readSeries(deps, organizationId, { organizationId, groupId }, checked, known, work)) };
  });
}

/** VALIDATION_FAILED naming every bad field; the checked values otherwise. */
export function checkSeriesInput(input: SeriesInput): CheckedInput {
  const problems: FieldProblem[] = [];
  const { tsmId, field, from, to } = input;
  if (typeof tsmId !== 'number' || !Number.isInteger(tsmId) || tsmId < 0 || tsmId > 2_147_483_647)
    problems.push({ field: 'tsmId', message: 'tsmId must be a message id (an integer from 0 to 2147483647)' });
  if (typeof field !== 'string' || field.length < 1 || field.length > rollupLimits.maxFieldNameLength || /\p{Cc}/u.test(field))
    problems.push({ field: 'field', message: `field must be a field name of 1 to ${rollupLimits.maxFieldNameLength} characters` });
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (value === undefined) problems.push({ field: name, message: `${name} is required` });
    else if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
      problems.push({ field: name, message: `${name} must be Unix seconds (a non-negative integer)` });
  }
  if (typeof from === 'number' && typeof to === 'number' && from > to)
    problems.push({ field: 'from', message: 'from must not be after to' });
  const bucket = input.bucket ?? 'auto';
  if (!seriesBuckets.includes(bucket as RequestedBucket))
    problems.push({ field: 'bucket', message: `bucket must be one of ${seriesBuckets.join(', ')}` });
  const maxPoints = input.maxPoints ?? seriesMaxPoints.default;
  if (typeof maxPoints !== 'number' || !Number.isInteger(maxPoints) || maxPoints < seriesMaxPoints.min || maxPoints > seriesMaxPoints.max)
    problems.push({ field: 'maxPoints', message: `maxPoints must be an integer from ${seriesMaxPoints.min} to ${seriesMaxPoints.max}` });
  if (problems.length > 0) throw validationFailed(problems);
  return {
    tsmId: tsmId as number,
    field: field as string,
    from: from as number,
    to: to as number,
    bucket: bucket as RequestedBucket,
    maxPoints: maxPoints as number,
  };
}

/**
 * Picks the bucket and reads the points. Rollup buckets are whole: a bucket is in the answer when its start lies
 * in [from rounded down to the bucket, to]. Raw data before the organization's raw horizon may be gone, so a raw
 * read answers the hours before the first whole hour after the horizon from the hourly rollups (two segments).
 * The point count of each bucket comes from the hourly rollups (raw: the messages counted there, an upper bound
 * at the range's edges); `auto` takes the finest within `maxPoints`, and an explicit bucket over it is refused.
 */
async function readSeries(
  deps: SeriesDeps,
  organizationId: string,
  subject: SeriesSubject,
  input: CheckedInput,
  known: KnownRuns,
  work: RequestWork,
): Promise<Series> {
  const { tsmId, field, from, to, maxPoints } = input;
  stopIfAbandoned(work);
  const horizon = await deps.rawHorizon(organizationId);
  // The first hour start at or after the horizon: raw data is kept from there on, rollups answer before it.
  const rawFrom = horizon === null || horizon <= from ? from : Math.max(from, Math.ceil(horizon / hourSeconds) * hourSeconds);
  const hourRange = { tsmId, field, fromHour: floorTo(from, hourSeconds), toHour: to };

  if (input.bucket === 'raw' && !('tuid' in subject))
    await refuseRawOverMaxPoints(deps, subject, { tsmId, field, from: rawFrom, to }, maxPoints, work);

  let bucket: SeriesBucket;
  if (input.bucket === 'auto') {
    // Counted only for auto: an explicit bucket checks the points it read.
    stopIfAbandoned(work);
    const counts = await deps.store.rollups.counts(subject, hourRange, floorTo(rawFrom, hourSeconds));
    const pointsOf: Record<SeriesBucket, number> = { raw: counts.rawPoints, '1h': counts.hours, '1d': counts.days };
    const fitting = (['raw', '1h', '1d'] as const).find((candidate) => pointsOf[candidate] <= maxPoints);
    if (!fitting)
      throw tooManyPoints(
        'maxPoints',
        `even bucket 1d gives ${counts.days} points, more than maxPoints ${maxPoints}; narrow the range or raise maxPoints`,
      );
    bucket = fitting;
  } else bucket = input.bucket;

  stopIfAbandoned(work);
  if (bucket === '1d' || bucket === '1h') {
    const runs =
      bucket === '1d'
        ? await deps.store.rollups.dayRuns(subject, { ...hourRange, fromHour: floorTo(from, daySeconds) }, known)
        : await deps.store.rollups.hourRuns(subject, hourRange, known);
    return answer({ tsmId, field, bucket, segments: [{ from, to, bucket }], runs: runs.map(pointRun) }, maxPoints);
  }

  const segments: SeriesSegment[] = [];
  const runs: PointRun[] = [];
  let rolledPoints = 0;
  if (rawFrom > from) {
    const rolledTo = Math.min(to, rawFrom - 1);
    segments.push({ from, to: rolledTo, bucket: '1h' });
    const points = (await deps.store.rollups.hours(subject, { ...hourRange, toHour: rolledTo })).map(hourPoint);
    runs.push({ points, etag: null });
    rolledPoints = points.length;
  }
  if (rawFrom <= to) {
    segments.push({ from: rawFrom, to, bucket: 'raw' });
    stopIfAbandoned(work);
    runs.push(...(await readRawRuns(deps, subject, { tsmId, field, from: rawFrom, to }, maxPoints - rolledPoints, known, work)));
  }
  return answer({ tsmId, field, bucket, segments, runs }, maxPoints);
}

/**
 * Raw points of a range as runs: a thing's per hour, with etags (see PointRun), so that hours the caller holds are
 * not read; when the range holds more messages than `room` + 1 (it may give too many points, or messages lack the
 * field), and for a group, one run from readRawPoints.
 */
async function readRawRuns(
  deps: SeriesDeps,
  subject: SeriesSubject,
  range: { tsmId: number; field: string; from: number; to: number },
  room: number,
  known: KnownRuns,
  work: RequestWork,
): Promise<PointRun[]> {
  if (rawReadOf(range.field) === 'none') return [];
  const hours =
    'tuid' in subject ? await deps.store.rollups.rawRuns(subject, { ...range, limit: Math.max(0, room) + 1 }, known) : undefined;
  if (hours === undefined) return [{ points: await readRawPoints(deps, subject, range, room, work), etag: null }];
  return hours.map((run) =>
    run.messages === null
      ? { points: null, etag: run.etag, count: run.count }
      : { points: rawPoints(run.messages, range.field), etag: run.etag },
  );
}

/**
 * A group's raw read sorts every message of the group in its range before it can stop at `maxPoints` + 1: refusing
 * one over maxPoints that way reads the whole range. The group's hourly rollups count the same points (the rollup
 * rule is the raw read's), so the hours lying whole in the raw part of the range give a lower bound on the points,
 * read from one row per hour; over maxPoints, the read is refused from them, before any raw message is read.
 */
async function refuseRawOverMaxPoints(
  deps: SeriesDeps,
  subject: SeriesSubject,
  range: { tsmId: number; field: string; from: number; to: number },
  maxPoints: number,
  work: RequestWork,
): Promise<void> {
  const fromHour = Math.ceil(range.from / hourSeconds) * hourSeconds;
  const toHour = Math.floor((range.to + 1) / hourSeconds) * hourSeconds - hourSeconds;
  if (fromHour > toHour || rawReadOf(range.field) === 'none') return;
  stopIfAbandoned(work);
  const { rawPoints } = await deps.store.rollups.counts(subject, { tsmId: range.tsmId, field: range.field, fromHour, toHour }, fromHour);
  if (rawPoints > maxPoints) throw tooManyPoints('bucket', rawOverMaxPoints(maxPoints));
}

function rawOverMaxPoints(maxPoints: number): string {
  return `bucket raw gives more than maxPoints ${maxPoints} points; choose 1h or 1d, or narrow the range`;
}

/** The series, or VALIDATION_FAILED when it holds more than maxPoints points (an explicit bucket's). */
function answer(series: Series, maxPoints: number): Series {
  const count = series.runs.reduce((sum, run) => sum + (run.points === null ? run.count : run.points.length), 0);
  if (count <= maxPoints) return series;
  throw tooManyPoints(
    'bucket',
    series.bucket === 'raw'
      ? rawOverMaxPoints(maxPoints)
      : `bucket ${series.bucket} gives ${count} points, more than maxPoints ${maxPoints}`,
  );
}

/** Messages a raw read may go through looking for `maxPoints` points of a field that not every message carries. */
const rawReadMaxMessages = 100_000;

/**
 * Raw points of a range, at most `room` + 1 (one more than may be answered, so an explicit raw request over
 * maxPoints is told so rather than cut short). The store counts messages, and a message without the field gives no
 * point: when a read comes back full with room to spare, it is read again with ten times the limit.
 */
async function readRawPoints(
  deps: SeriesDeps,
  subject: SeriesSubject,
  range: { tsmId: number; field: string; from: number; to: number },
  room: number,
  work: RequestWork,
): Promise<SeriesPoint[]> {
  const read = rawReadOf(range.field);
  if (read === 'none') return [];
  for (let limit = Math.max(0, room) + 1; ; limit *= 10) {
    stopIfAbandoned(work);
    const messages = await deps.store.rollups.rawMessages(subject, { ...range, field: read === 'direct' ? range.field : null, limit });
    const points = rawPoints(messages, range.field);
    if (points.length > room || messages.length < limit) return points;
    if (limit >= rawReadMaxMessages)
      throw tooManyPoints('bucket', `bucket raw would read more than ${rawReadMaxMessages} messages; choose 1h or 1d, or narrow the range`);
  }
}

function tooManyPoints(fieldName: 'bucket' | 'maxPoints', message: string) {
  return validationFailed([{ field: fieldName, message }]);
}
