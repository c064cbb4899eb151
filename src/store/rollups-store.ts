import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import {
  nothingKnown,
  type HourlyRollup,
  type HourRun,
  type KnownRuns,
  type RollupCounts,
  type RawMessage,
  type RawRun,
  type RollupRange,
  type SeriesSubject,
} from '../domain/series/series-types.js';
import { daySeconds } from '../domain/series/rollup-rules.js';
import { planRunner, type Plan } from './rollups/read-plan.js';
import { rollupPlans, startPlan, type RollupPlanName } from './rollups/rollup-plans.js';
import { groupRollupTables, thingRollupTables } from './rollups/rollup-tables.js';
import type { Schema } from './schema.js';
import type { SqliteDirectReads } from './sqlite-direct-reads.js';
import type { SqliteReaderPool } from './sqlite-reader-pool.js';

export type RollupsStore = ReturnType<typeof rollupsStore>;

/**
 * Reads of the rollups and of raw messages for series, and their expiry. Three tiers answer a series: compacted
 * days (migration 0017, written by the retention sweep's compaction, store/rollups/), hourly rows (groups', and
 * things' late messages, written in the ingest transaction, store/batch-writer/rollup-batch.ts), and a thing's raw
 * messages from its rollup watermark on (migration 0018), folded when read. Every read combines them, in one
 * snapshot.
 */
export function rollupsStore(
  db: Kysely<Schema>,
  dialect: 'sqlite' | 'postgres',
  directReads: SqliteDirectReads | undefined,
  readers?: SqliteReaderPool,
) {
  const sqlite = dialect === 'sqlite';
  const runner = planRunner(db, dialect, directReads);
  const plans = rollupPlans(dialect);
  /**
   * Runs the plan `name` with `args` in one snapshot: on a SQLite reader thread where there are (the thread runs the
   * same plans, by name, with the arguments cloned), so that the event loop never waits for a series read;
   * otherwise as planRunner runs it.
   */
  const inSnapshot = <T>(name: RollupPlanName, args: readonly unknown[], known: KnownRuns = nothingKnown): Promise<T> =>
    readers
      ? readers.run<T>({ kind: 'plan', name, args }, known)
      : runner.inSnapshot<T>(() => startPlan(plans, name, args) as Plan<T>, known);

  return {
    /**
     * A subject's hourly buckets of one field, oldest first, in runs (see HourRun): the hours of its compacted days,
     * its hourly rows (a late hourly row merged into the compacted hour it shares) and a thing's hours from its raw
     * messages. A compacted day whole in the range and untouched by the later tiers is a run of its own with its
     * etag, and when `known` holds that etag its packed hours are not even read: a year of hours is 365 of them, each
     * on an overflow page of its own in SQLite, ten times the figures rows that say whether they changed.
     */
    hourRuns: (subject: SeriesSubject, range: RollupRange, known: KnownRuns): Promise<HourRun[]> =>
      inSnapshot('hourRunsPlan', [subject, range], known),

    /** The same as one list of buckets. */
    hours: async (subject: SeriesSubject, range: RollupRange): Promise<readonly HourlyRollup[]> =>
      (await inSnapshot<HourRun[]>('hourRunsPlan', [subject, range])).flatMap((run) => run.hours ?? []),

    /**
     * A subject's days of one field (UTC), oldest first, in runs (see HourRun); `range.fromHour` is a day's start.
     * A compacted day answers with its own figures (its hours only when `toHour` cuts it), merged with the later
     * tiers' hours folded into days. Consecutive days that only their compacted rows answer are a run of their own,
     * with an etag made of their tokens, and when `known` holds it their figures are not read: a year of days took
     * longer to hand over from SQLite than all the rest of its answer (see day-runs.ts).
     */
    dayRuns: (subject: SeriesSubject, range: RollupRange, known: KnownRuns): Promise<HourRun[]> =>
      inSnapshot('dayRunsPlan', [subject, range], known),

    /** The same as one list of days. */
    days: async (subject: SeriesSubject, range: RollupRange): Promise<readonly HourlyRollup[]> =>
      (await inSnapshot<HourRun[]>('dayRunsPlan', [subject, range])).flatMap((run) => run.hours ?? []),

    /**
     * How many points each bucket would give (see RollupCounts); raw counted from `rawFromHour` on. Counted per
     * day over both tiers: a compacted day by its columns, or by its hours where the range or `rawFromHour` cuts
     * it. An hour both compacted and late in the hourly table counts twice (an upper bound, as raw counts are).
     */
    counts: (subject: SeriesSubject, range: RollupRange, rawFromHour: number): Promise<RollupCounts> =>
      inSnapshot('countsPlan', [subject, range, rawFromHour]),

    /** A thing's raw messages of one id in [from, to] per hour (see rawRunsPlan), in one snapshot. */
    rawRuns: (
      subject: { tuid: string },
      read: { tsmId: number; field: string; from: number; to: number; limit: number },
      known: KnownRuns,
    ) => inSnapshot<RawRun[] | undefined>('rawRunsPlan', [subject, read], known),

    /**
     * A subject's stored messages of one id with tsmTs in [from, to], oldest first, at most `limit` (see
     * rawMessagesPlan). One statement sees one state by itself: on PostgreSQL no transaction around it.
     */
    rawMessages: (subject: SeriesSubject, read: { tsmId: number; field: string | null; from: number; to: number; limit: number }) =>
      sqlite
        ? inSnapshot<RawMessage[]>('rawMessagesPlan', [subject, read])
        : runner.runOn(db, plans.rawMessagesPlan(subject, read), nothingKnown),

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
