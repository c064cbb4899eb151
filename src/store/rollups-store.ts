import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { HourlyRollup, RawMessage, RollupCounts, RollupRange, SeriesSubject } from '../domain/series/series-types.js';
import { shownGroupId } from '../domain/groups/unassigned-group.js';
import { directReadMaxBodyLength } from '../domain/series/rollup-rules.js';
import type { Schema } from './schema.js';
import type { SqliteDirectReads } from './sqlite-direct-reads.js';

export type RollupsStore = ReturnType<typeof rollupsStore>;

const figures = 'hour_start, count, min, max, sum, first, first_ts, last, last_ts';
type FiguresRow = [number, number, number, number, number, number, number, number, number];

/**
 * Reads of the hourly rollups (migration 0011) and of raw messages for series, and their expiry. Rollups are
 * written by the ingest transaction only (store/ingest/rollup-batch.ts).
 */
export function rollupsStore(db: Kysely<Schema>, dialect: 'sqlite' | 'postgres', directReads: SqliteDirectReads | undefined) {
  const sqlite = dialect === 'sqlite';
  /** The table, key condition (columns of `alias`, when given) and its parameters of a subject's rows for one field. */
  const keyOf = (subject: SeriesSubject, range: RollupRange, alias = '') => {
    const [table, columns, parameters] =
      'tuid' in subject
        ? ['thing_rollups', ['tuid', 'tsm_id', 'field'], [subject.tuid, range.tsmId, range.field]]
        : [
            'group_rollups',
            ['organization_id', 'group_id', 'tsm_id', 'field'],
            [subject.organizationId, shownGroupId(subject.groupId), range.tsmId, range.field],
          ];
    return { table, where: columns.map((column) => `${alias}${column} = ?`).join(' and '), parameters };
  };

  /**
   * Runs a read with `?` placeholders: a prepared statement on SQLite, the query builder's raw SQL on PostgreSQL.
   * Each row comes as an array of its columns, in the order selected.
   */
  async function query<Row extends unknown[]>(text: string, parameters: readonly unknown[]): Promise<Row[]> {
    const direct = directReads?.statement<Row>(text, 'arrays');
    if (direct) return direct.all(...parameters);
    let index = 0;
    const parts = text.split('?');
    const compiled = sql.join(
      parts.map((part, i) => (i === 0 ? sql.raw(part) : sql`${parameters[index++]}${sql.raw(part)}`)),
      sql.raw(''),
    );
    return (await sql<Record<string, unknown>>`${compiled}`.execute(db)).rows.map((row) => Object.values(row) as Row);
  }

  return {
    /** A subject's hourly buckets of one field, oldest first. */
    async hours(subject: SeriesSubject, range: RollupRange): Promise<HourlyRollup[]> {
      const key = keyOf(subject, range);
      const rows = await query<FiguresRow>(
        `select ${figures} from ${key.table} where ${key.where} and hour_start >= ? and hour_start <= ? order by hour_start`,
        [...key.parameters, range.fromHour, range.toHour],
      );
      return rows.map(toHourly);
    },

    /**
     * A subject's days of one field (UTC), oldest first, folded from the hourly rows in SQL: counts and sums add,
     * extremes widen, and since hours do not overlap a day's first value is its earliest hour's first and its last
     * value its latest hour's last (two key lookups per day). `hourStart` is the day's start. A group by in the
     * store returns 365 rows for a year instead of 8,760.
     */
    async days(subject: SeriesSubject, range: RollupRange): Promise<HourlyRollup[]> {
      const key = keyOf(subject, range);
      const [f, l] = [keyOf(subject, range, 'f.'), keyOf(subject, range, 'l.')];
      const rows = await query<FiguresRow>(
        `select d.day_start, d.count, d.min, d.max, d.sum, f.first, f.first_ts, l.last, l.last_ts
         from (select (hour_start / 86400) * 86400 as day_start, sum(count) as count, min(min) as min, max(max) as max, sum(sum) as sum,
                      min(hour_start) as first_hour, max(hour_start) as last_hour
               from ${key.table} where ${key.where} and hour_start >= ? and hour_start <= ? group by hour_start / 86400) d
         join ${key.table} f on ${f.where} and f.hour_start = d.first_hour
         join ${key.table} l on ${l.where} and l.hour_start = d.last_hour
         order by d.day_start`,
        [...key.parameters, range.fromHour, range.toHour, ...f.parameters, ...l.parameters],
      );
      return rows.map(toHourly);
    },

    /** How many points each bucket would give (see RollupCounts); raw counted from `rawFromHour` on. */
    async counts(subject: SeriesSubject, range: RollupRange, rawFromHour: number): Promise<RollupCounts> {
      const key = keyOf(subject, range);
      const [row] = await query<[number | string, number | string, number | string | null]>(
        `select count(*) as hours, count(distinct hour_start / 86400) as days,
                sum(case when hour_start >= ? then count else 1 end) as raw
         from ${key.table} where ${key.where} and hour_start >= ? and hour_start <= ?`,
        [rawFromHour, ...key.parameters, range.fromHour, range.toHour],
      );
      return { hours: Number(row?.[0] ?? 0), days: Number(row?.[1] ?? 0), rawPoints: Number(row?.[2] ?? 0) };
    },

    /**
     * A subject's stored messages of one id with tsmTs in [from, to], oldest first, at most `limit`. With
     * `field` (a name rawReadOf calls direct) the store reads the member itself from messages shorter than
     * directReadMaxBodyLength, a number or null, and returns the body of longer ones only; without, every body.
     * A group's messages are those that arrived while their thing was in it (`messages.group_id`), found through
     * the organization's things (one key range each: the messages table has no index by group).
     */
    async rawMessages(
      subject: SeriesSubject,
      read: { tsmId: number; field: string | null; from: number; to: number; limit: number },
    ): Promise<RawMessage[]> {
      const m = 'tuid' in subject ? '' : 'm.';
      let columns = `${m}tsm_ts, null, ${m}body`;
      const columnParameters: unknown[] = [];
      if (read.field !== null) {
        // PostgreSQL's JSON parser refuses an escaped NUL character (`\u0000`, valid JSON): such a body is parsed.
        const short = sqlite
          ? `length(${m}body) < ${directReadMaxBodyLength}`
          : `length(${m}body) < ${directReadMaxBodyLength} and strpos(${m}body, '\\u0000') = 0`;
        // The member as JSON text (`21.5`, `true`, `"x"`): one parse per row; numberOfJson keeps the numbers.
        const member = sqlite ? `${m}body -> ?` : `(${m}body::json -> ?::text)::text`;
        columns = `${m}tsm_ts, case when ${short} then ${member} end, case when ${short} then null else ${m}body end`;
        columnParameters.push(sqlite ? `$."${read.field}"` : read.field);
      }
      type RawRow = [number, string | null, string | null];
      const toMessage = ([tsmTs, member, body]: RawRow): RawMessage => ({ tsmTs: Number(tsmTs), value: numberOfJson(member), body });
      if ('tuid' in subject) {
        const rows = await query<RawRow>(
          `select ${columns} from messages where tuid = ? and tsm_ts >= ? and tsm_ts <= ? and tsm_id = ? order by tsm_ts, fingerprint limit ?`,
          [...columnParameters, subject.tuid, read.from, read.to, read.tsmId, read.limit],
        );
        return rows.map(toMessage);
      }
      const group = subject.groupId === null ? 'm.group_id is null' : 'm.group_id = ?';
      const rows = await query<RawRow>(
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
    },

    /**
     * Deletes at most `limit` hourly rollup rows (things' and groups') of an organization whose hour starts before
     * `beforeHourStart`; answers how many went. For the retention sweep, which calls it until it answers 0.
     */
    async expire(organizationId: string, beforeHourStart: number, limit: number): Promise<number> {
      const groups = await sql`delete from group_rollups where (organization_id, group_id, tsm_id, field, hour_start) in (
          select organization_id, group_id, tsm_id, field, hour_start from group_rollups
          where organization_id = ${organizationId} and hour_start < ${beforeHourStart} limit ${limit})`.execute(db);
      const removed = Number(groups.numAffectedRows ?? 0);
      if (removed >= limit) return removed;
      const things = await sql`delete from thing_rollups where (tuid, tsm_id, field, hour_start) in (
          select tuid, tsm_id, field, hour_start from thing_rollups
          where organization_id = ${organizationId} and hour_start < ${beforeHourStart} limit ${limit - removed})`.execute(db);
      return removed + Number(things.numAffectedRows ?? 0);
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
