import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { HourlyRollup, RawMessage, RollupCounts, RollupRange, SeriesSubject } from '../domain/series/series-types.js';
import { shownGroupId } from '../domain/groups/unassigned-group.js';
import type { Schema } from './schema.js';
import type { SqliteDirectReads } from './sqlite-direct-reads.js';

export type RollupsStore = ReturnType<typeof rollupsStore>;

const figures = 'hour_start as "hourStart", count, min, max, sum, first, first_ts as "firstTs", last, last_ts as "lastTs"';

/**
 * Reads of the hourly rollups (migration 0011) and of raw messages for series, and their expiry. Rollups are
 * written by the ingest transaction only (store/ingest/rollup-batch.ts).
 */
export function rollupsStore(db: Kysely<Schema>, directReads: SqliteDirectReads | undefined) {
  /** The key condition and its parameters of a subject's rollup rows for one field. */
  const keyOf = (subject: SeriesSubject, range: RollupRange) =>
    'tuid' in subject
      ? { table: 'thing_rollups', where: 'tuid = ? and tsm_id = ? and field = ?', parameters: [subject.tuid, range.tsmId, range.field] }
      : {
          table: 'group_rollups',
          where: 'organization_id = ? and group_id = ? and tsm_id = ? and field = ?',
          parameters: [subject.organizationId, shownGroupId(subject.groupId), range.tsmId, range.field],
        };

  /** Runs a read with `?` placeholders: a prepared statement on SQLite, the query builder's raw SQL on PostgreSQL. */
  async function query<Row>(text: string, parameters: readonly unknown[]): Promise<Row[]> {
    const direct = directReads?.statement<Row>(text, 'rows');
    if (direct) return direct.all(...parameters);
    let index = 0;
    const parts = text.split('?');
    const compiled = sql.join(
      parts.map((part, i) => (i === 0 ? sql.raw(part) : sql`${parameters[index++]}${sql.raw(part)}`)),
      sql.raw(''),
    );
    return (await sql<Row>`${compiled}`.execute(db)).rows;
  }

  return {
    /** A subject's hourly buckets of one field, oldest first. */
    async hours(subject: SeriesSubject, range: RollupRange): Promise<HourlyRollup[]> {
      const key = keyOf(subject, range);
      const rows = await query<HourlyRollup>(
        `select ${figures} from ${key.table} where ${key.where} and hour_start >= ? and hour_start <= ? order by hour_start`,
        [...key.parameters, range.fromHour, range.toHour],
      );
      return rows.map(numeric);
    },

    /** How many points each bucket would give (see RollupCounts); raw counted from `rawFromHour` on. */
    async counts(subject: SeriesSubject, range: RollupRange, rawFromHour: number): Promise<RollupCounts> {
      const key = keyOf(subject, range);
      const [row] = await query<{ hours: number | string; days: number | string; raw: number | string | null }>(
        `select count(*) as hours, count(distinct hour_start / 86400) as days,
                sum(case when hour_start >= ? then count else 1 end) as raw
         from ${key.table} where ${key.where} and hour_start >= ? and hour_start <= ?`,
        [rawFromHour, ...key.parameters, range.fromHour, range.toHour],
      );
      return { hours: Number(row?.hours ?? 0), days: Number(row?.days ?? 0), rawPoints: Number(row?.raw ?? 0) };
    },

    /**
     * A subject's stored messages of one id with tsmTs in [from, to], oldest first, at most `limit`. A group's are
     * the messages that arrived while their thing was in it (`messages.group_id`), found through the
     * organization's things (one key range each: the messages table has no index by group).
     */
    async rawMessages(subject: SeriesSubject, tsmId: number, from: number, to: number, limit: number): Promise<RawMessage[]> {
      if ('tuid' in subject) {
        return query<RawMessage>(
          'select tsm_ts as "tsmTs", body from messages where tuid = ? and tsm_ts >= ? and tsm_ts <= ? and tsm_id = ? order by tsm_ts, fingerprint limit ?',
          [subject.tuid, from, to, tsmId, limit],
        );
      }
      const group = subject.groupId === null ? 'm.group_id is null' : 'm.group_id = ?';
      return query<RawMessage>(
        `select m.tsm_ts as "tsmTs", m.body from things t join messages m on m.tuid = t.tuid
         where t.organization_id = ? and m.organization_id = t.organization_id and m.tsm_ts >= ? and m.tsm_ts <= ? and m.tsm_id = ? and ${group}
         order by m.tsm_ts, m.tuid, m.fingerprint limit ?`,
        [subject.organizationId, from, to, tsmId, ...(subject.groupId === null ? [] : [subject.groupId]), limit],
      );
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

/** PostgreSQL answers bigint columns as numbers already (database.ts); this keeps both stores' rows plain numbers. */
function numeric(row: HourlyRollup): HourlyRollup {
  return typeof row.count === 'number' && typeof row.hourStart === 'number'
    ? row
    : { ...row, count: Number(row.count), hourStart: Number(row.hourStart) };
}
