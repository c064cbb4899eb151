import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type {
  HourlyRollup,
  HourRun,
  KnownRuns,
  RawMessage,
  RawRun,
  RollupCounts,
  RollupRange,
  SeriesSubject,
} from '../domain/series/series-types.js';
import { shownGroupId } from '../domain/groups/unassigned-group.js';
import { foldInto, hoursOfReadings, mergeRuns } from '../domain/series/rollup-merge.js';
import { daySeconds, directReadMaxBodyLength, hourSeconds, rawReadOf, rawValueOf } from '../domain/series/rollup-rules.js';
import { withPlaceholders } from './portable-sql.js';
import { decodeHours } from './rollups/hourly-codec.js';
import { assembleRuns, lastHourOfDay, planCompactedDays } from './rollups/hour-runs.js';
import { groupRollupTables, thingRollupTables } from './rollups/rollup-tables.js';
import type { Schema } from './schema.js';
import type { SqliteDirectReads } from './sqlite-direct-reads.js';

export type RollupsStore = ReturnType<typeof rollupsStore>;

const figures = 'hour_start, count, min, max, sum, first, first_ts, last, last_ts';
type FiguresRow = [number, number, number, number, number, number, number, number, number];

/** A statement of a read plan, with `?` placeholders. */
interface Statement {
  text: string;
  parameters: readonly unknown[];
}
/** A read of several statements (see inSnapshot): yields each statement and is given its rows. */
type Plan<T> = Generator<Statement, T, unknown[][]>;

/** One statement of a plan; its rows typed as the caller selected them. */
function* select<Row extends unknown[]>(text: string, parameters: readonly unknown[]): Generator<Statement, Row[], unknown[][]> {
  return (yield { text, parameters }) as Row[];
}
const floorTo = (seconds: number, size: number) => Math.floor(seconds / size) * size;

/**
 * Reads of the rollups and of raw messages for series, and their expiry. Three tiers answer a series: compacted
 * days (migration 0017, written by the retention sweep's compaction, store/rollups/), hourly rows (groups', and
 * things' late messages, written in the ingest transaction, store/ingest/rollup-batch.ts), and a thing's raw
 * messages from its rollup watermark on (migration 0018), folded when read. Every read combines them, in one
 * snapshot.
 */
export function rollupsStore(db: Kysely<Schema>, dialect: 'sqlite' | 'postgres', directReads: SqliteDirectReads | undefined) {
  const sqlite = dialect === 'sqlite';
  /** The tables, key condition (columns of `alias`, when given) and its parameters of a subject's rows for one field. */
  const keyOf = (subject: SeriesSubject, range: RollupRange, alias = '') => {
    const [tables, parameters] =
      'tuid' in subject
        ? [thingRollupTables, [subject.tuid, range.tsmId, range.field]]
        : [groupRollupTables, [subject.organizationId, shownGroupId(subject.groupId), range.tsmId, range.field]];
    return {
      table: tables.hours,
      days: tables.days,
      dayHours: tables.dayHours,
      where: tables.key.map((column) => `${alias}${column} = ?`).join(' and '),
      parameters,
    };
  };

  /**
   * Runs a read plan (a generator yielding statements with `?` placeholders and receiving each one's rows, every row
   * an array of its columns in the order selected) so that all its statements see one state of the store: the
   * compaction moves rows between the tiers (raw, hourly, days) and a read that met the store half before and half
   * after a step would count them twice or not at all. SQLite: prepared statements in one read transaction, run
   * whole and synchronously on the main connection. Otherwise (PostgreSQL, or SQLite while the connection is in
   * another transaction): one transaction of the query builder, REPEATABLE READ on PostgreSQL.
   */
  async function inSnapshot<T>(plan: () => Plan<T>): Promise<T> {
    const direct = directReads?.snapshot((all) => {
      const steps = plan();
      let step = steps.next();
      while (!step.done) step = steps.next(all(step.value.text, step.value.parameters));
      return step.value;
    });
    if (direct) return direct.value;
    const transaction = sqlite ? db.transaction() : db.transaction().setIsolationLevel('repeatable read');
    return transaction.execute((trx) => runOn(trx, plan()));
  }

  /** Runs a plan's statements one after another on `executor` (a transaction, or the store for a plan of one). */
  async function runOn<T>(executor: Kysely<Schema>, steps: Plan<T>): Promise<T> {
    let step = steps.next();
    while (!step.done) {
      const { rows } = await withPlaceholders<Record<string, unknown>>(step.value.text, step.value.parameters).execute(executor);
      step = steps.next(rows.map((row) => Object.values(row)));
    }
    return step.value;
  }

  /**
   * A subject's stored messages of one id with tsmTs in [from, to], oldest first, at most `limit`. With
   * `field` (a name rawReadOf calls direct) the store reads the member itself from messages shorter than
   * directReadMaxBodyLength, a number or null, and returns the body of longer ones only; without, every body.
   * A group's messages are those that arrived while their thing was in it (`messages.group_id`), found through
   * the organization's things (one key range each: the messages table has no index by group).
   */
  function* rawMessagesPlan(
    subject: SeriesSubject,
    read: { tsmId: number; field: string | null; from: number; to: number; limit: number },
  ): Plan<RawMessage[]> {
    const m = 'tuid' in subject ? '' : 'm.';
    let columns = `${m}tsm_ts, null, ${m}body`;
    const columnParameters: unknown[] = [];
    if (read.field !== null) {
      // Bytes, not characters (there are at least as many): SQLite knows a text's bytes without counting its
      // characters, which took a fifth of a day's read. PostgreSQL's JSON parser refuses an escaped NUL character
      // (`\u0000`, valid JSON): such a body is parsed.
      const short = sqlite
        ? `octet_length(${m}body) < ${directReadMaxBodyLength}`
        : `octet_length(${m}body) < ${directReadMaxBodyLength} and strpos(${m}body, '\\u0000') = 0`;
      // The member as JSON text (`21.5`, `true`, `"x"`): one parse per row; numberOfJson keeps the numbers.
      const member = sqlite ? `${m}body -> ?` : `(${m}body::json -> ?::text)::text`;
      columns = `${m}tsm_ts, case when ${short} then ${member} end, case when ${short} then null else ${m}body end`;
      columnParameters.push(sqlite ? `$."${read.field}"` : read.field);
    }
    type RawRow = [number, string | null, string | null];
    const toMessage = ([tsmTs, member, body]: RawRow): RawMessage => ({ tsmTs: Number(tsmTs), value: numberOfJson(member), body });
    if ('tuid' in subject) {
      // The primary key's order (tuid, tsm_ts, tsm_id, fingerprint). SQLite sorts again when `fingerprint` is named
      // (a temporary B-tree for the last term, a third of the read) though its key scan already gives that order;
      // PostgreSQL merges week partitions and needs it named.
      const thingRawOrder = sqlite ? 'tsm_ts, tsm_id' : 'tsm_ts, fingerprint';
      const rows = yield* select<RawRow>(
        `select ${columns} from messages where tuid = ? and tsm_ts >= ? and tsm_ts <= ? and tsm_id = ? order by ${thingRawOrder} limit ?`,
        [...columnParameters, subject.tuid, read.from, read.to, read.tsmId, read.limit],
      );
      return rows.map(toMessage);
    }
    const group = subject.groupId === null ? 'm.group_id is null' : 'm.group_id = ?';
    const rows = yield* select<RawRow>(
      `select ${columns} from things t join messages m on m.tuid = t.tuid
       where t.organization_id = ? and m.organization_id = t.organization_id and m.tsm_ts >= ? and m.tsm_ts <= ? and m.tsm_id = ? and ${group}
       order by m.tsm_ts, m.tuid, m.fingerprint limit ?`,
      [
        ...columnParameters,
        subject.organizationId,
        read.from,
        read.to,
        read.tsmId,
        ...(subject.groupId === null ? [] : [subject.groupId]),
        read.limit,
      ],
    );
    return rows.map(toMessage);
  }

  /**
   * The hourly buckets of a thing's field from its raw messages, for the hours at and after its rollup watermark
   * (migration 0018) that lie in the range: those are not in its stored rollups yet. Groups have none (their
   * rollups are all written at ingest).
   */
  function* rawTail(subject: SeriesSubject, range: RollupRange): Plan<readonly HourlyRollup[]> {
    if (!('tuid' in subject)) return [];
    const read = rawReadOf(range.field);
    const [row] = yield* select<[number | string]>('select rollup_watermark from things where tuid = ?', [subject.tuid]);
    if (!row || read === 'none') return [];
    const from = Math.max(range.fromHour, Number(row[0]));
    // Every message of the last bucket the range holds (the hour `toHour` is in); tsmTs may have a fraction.
    const to = floorTo(range.toHour, hourSeconds) + hourSeconds - 1e-6;
    if (from > to) return [];
    const messages = yield* rawMessagesPlan(subject, {
      tsmId: range.tsmId,
      field: read === 'direct' ? range.field : null,
      from,
      to,
      limit: Number.MAX_SAFE_INTEGER,
    });
    const readings: { ts: number; value: number }[] = [];
    for (const message of messages) {
      const value = rawValueOf(message, range.field);
      if (value !== null) readings.push({ ts: message.tsmTs, value });
    }
    return hoursOfReadings(readings);
  }

  /**
   * A thing's raw messages of one id in [from, to] as runs per UTC hour (see RawRun), each with an etag made of its
   * messages' keys: a stored message's fingerprint stands for its body, and a key is stored once, so the same keys
   * are the same points. An hour whose etag the caller holds is not read. The keys first, of at most `limit`
   * messages; when the range holds that many (it may hold more), undefined: the caller reads without runs.
   */
  function* rawRunsPlan(
    subject: { tuid: string },
    read: { tsmId: number; field: string; from: number; to: number; limit: number },
    known: KnownRuns,
  ): Plan<RawRun[] | undefined> {
    const hourOf = sqlite ? 'cast(tsm_ts / 3600 as integer)' : 'floor(tsm_ts / 3600)::bigint';
    const keys = `${sqlite ? 'group_concat' : 'string_agg'}(fingerprint, ',' order by tsm_ts, fingerprint)`;
    const hours = yield* select<[number | string, number | string, string]>(
      `select hour, count(*), ${keys} from (
         select ${hourOf} as hour, tsm_ts, fingerprint from messages where tuid = ? and tsm_ts >= ? and tsm_ts <= ? and tsm_id = ?
         order by tsm_ts limit ?) keyed
       group by hour order by hour`,
      [subject.tuid, read.from, read.to, read.tsmId, read.limit],
    );
    if (hours.reduce((sum, [, count]) => sum + Number(count), 0) >= read.limit) return undefined;
    const field = rawReadOf(read.field) === 'direct' ? read.field : null;
    const runs: RawRun[] = [];
    const unread: { run: { messages: RawMessage[]; etag: string }; hourStart: number }[] = [];
    for (const [hour, , fingerprints] of hours) {
      const hourStart = Number(hour) * hourSeconds;
      const etag = `raw:${createHash('sha256').update(`${subject.tuid}\n${read.tsmId}\n${read.field}\n${hourStart}\n${fingerprints}`).digest('base64url')}`;
      const count = known(etag);
      if (count !== undefined) runs.push({ messages: null, etag, count });
      else {
        const run = { messages: [] as RawMessage[], etag };
        runs.push(run);
        unread.push({ run, hourStart });
      }
    }
    // The hours not held, read in spans of consecutive hours (a live chart's: its first hour, which the moving
    // range cuts anew, and the current one).
    for (let i = 0; i < unread.length;) {
      let j = i + 1;
      while (j < unread.length && unread[j]!.hourStart === unread[j - 1]!.hourStart + hourSeconds) j++;
      const span = {
        from: Math.max(read.from, unread[i]!.hourStart),
        to: Math.min(read.to, unread[j - 1]!.hourStart + hourSeconds - 1e-6),
      };
      const messages = yield* rawMessagesPlan(subject, { tsmId: read.tsmId, field, ...span, limit: read.limit });
      for (const message of messages)
        unread[i + Math.floor(message.tsmTs / hourSeconds) - unread[i]!.hourStart / hourSeconds]!.run.messages.push(message);
      i = j;
    }
    return runs;
  }

  function* hourRunsPlan(subject: SeriesSubject, range: RollupRange, known: KnownRuns): Plan<HourRun[]> {
    const key = keyOf(subject, range);
    const dayRows = yield* select<[number, number, string | null]>(
      `select day_start, hours, hours_etag from ${key.days} where ${key.where} and day_start >= ? and day_start <= ? order by day_start`,
      [...key.parameters, floorTo(range.fromHour, daySeconds), range.toHour],
    );
    const hot = yield* select<FiguresRow>(
      `select ${figures} from ${key.table} where ${key.where} and hour_start >= ? and hour_start <= ? order by hour_start`,
      [...key.parameters, range.fromHour, range.toHour],
    );
    const later = mergeRuns(hot.map(toHourly), yield* rawTail(subject, range));
    const days = planCompactedDays(
      dayRows.map(([dayStart, hours, etag]) => ({ dayStart: Number(dayStart), hours: Number(hours), etag })),
      range,
      later,
      known,
    );
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

  return {
    /**
     * A subject's hourly buckets of one field, oldest first, in runs (see HourRun): the hours of its compacted days,
     * its hourly rows (a late hourly row merged into the compacted hour it shares) and a thing's hours from its raw
     * messages. A compacted day whole in the range and untouched by the later tiers is a run of its own with its
     * etag, and when `known` holds that etag its packed hours are not even read: a year of hours is 365 of them, each
     * on an overflow page of its own in SQLite, ten times the figures rows that say whether they changed.
     */
    hourRuns: (subject: SeriesSubject, range: RollupRange, known: KnownRuns): Promise<HourRun[]> =>
      inSnapshot(() => hourRunsPlan(subject, range, known)),

    /** The same as one list of buckets. */
    hours: async (subject: SeriesSubject, range: RollupRange): Promise<readonly HourlyRollup[]> =>
      (await inSnapshot(() => hourRunsPlan(subject, range, () => undefined))).flatMap((run) => run.hours ?? []),

    /**
     * A subject's days of one field (UTC), oldest first; `range.fromHour` is a day's start. A compacted day answers
     * with its own figures (its hours only when `toHour` cuts it); the hourly rows are folded in SQL, as counts and
     * sums add, extremes widen, and since hours do not overlap a day's first value is its earliest hour's first and
     * its last value its latest hour's last (two key lookups per day). The two are merged day by day (the hourly
     * rows of a compacted day are late messages). `hourStart` is the day's start.
     */
    days: (subject: SeriesSubject, range: RollupRange): Promise<readonly HourlyRollup[]> =>
      inSnapshot(function* () {
        const key = keyOf(subject, range);
        const [f, l] = [keyOf(subject, range, 'f.'), keyOf(subject, range, 'l.')];
        const days = yield* select<FiguresRow>(
          `select day_start, count, min, max, sum, first, first_ts, last, last_ts
           from ${key.days} where ${key.where} and day_start >= ? and day_start <= ? order by day_start`,
          [...key.parameters, range.fromHour, range.toHour],
        );
        // The day `toHour` cuts (before its last hour): only its hours up to there, from its packed hours.
        const cutDay = floorTo(range.toHour, daySeconds);
        const [cut] =
          range.toHour < cutDay + lastHourOfDay
            ? yield* select<[Uint8Array]>(`select hourly from ${key.dayHours} where ${key.where} and day_start = ?`, [
                ...key.parameters,
                cutDay,
              ])
            : [];
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
        const compacted = days.map(toHourly);
        if (cut && Number(days.at(-1)?.[0]) === cutDay)
          compacted.splice(-1, 1, ...foldInto(daySeconds, decodeHours(cut[0], -Infinity, range.toHour)));
        return mergeRuns(mergeRuns(compacted, hot.map(toHourly)), foldInto(daySeconds, yield* rawTail(subject, range)));
      }),

    /**
     * How many points each bucket would give (see RollupCounts); raw counted from `rawFromHour` on. Counted per
     * day over both tiers: a compacted day by its columns, or by its hours where the range or `rawFromHour` cuts
     * it. An hour both compacted and late in the hourly table counts twice (an upper bound, as raw counts are).
     */
    counts: (subject: SeriesSubject, range: RollupRange, rawFromHour: number): Promise<RollupCounts> =>
      inSnapshot(function* () {
        const key = keyOf(subject, range);
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
      }),

    /** A thing's raw messages of one id in [from, to] per hour (see rawRunsPlan), in one snapshot. */
    rawRuns: (
      subject: { tuid: string },
      read: { tsmId: number; field: string; from: number; to: number; limit: number },
      known: KnownRuns,
    ) => inSnapshot(() => rawRunsPlan(subject, read, known)),

    /**
     * A subject's stored messages of one id with tsmTs in [from, to], oldest first, at most `limit` (see
     * rawMessagesPlan). One statement sees one state by itself: on PostgreSQL no transaction around it.
     */
    rawMessages: (subject: SeriesSubject, read: { tsmId: number; field: string | null; from: number; to: number; limit: number }) =>
      sqlite ? inSnapshot(() => rawMessagesPlan(subject, read)) : runOn(db, rawMessagesPlan(subject, read)),

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

/** A figures row as a bucket; Number() because PostgreSQL answers sums of bigint as numeric (text). */
function toHourly([hourStart, count, min, max, sum, first, firstTs, last, lastTs]: FiguresRow): HourlyRollup {
  return {
    hourStart: Number(hourStart),
    count: Number(count),
    min: Number(min),
    max: Number(max),
    sum: Number(sum),
    first: Number(first),
    firstTs: Number(firstTs),
    last: Number(last),
    lastTs: Number(lastTs),
  };
}

/** A JSON member's text as a number, or null when it is not a finite number (a string, boolean, object, null). */
function numberOfJson(text: string | null): number | null {
  if (text === null) return null;
  const first = text.charCodeAt(0);
  // A JSON number starts with a digit or a minus sign; nothing else does.
  if (first !== 45 && (first < 48 || first > 57)) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}
