import { shownGroupId } from '../../domain/groups/unassigned-group.js';
import type { HourlyRollup, SeriesSubject } from '../../domain/series/series-types.js';

/**
 * The two families of rollup tables, hourly (migration 0011) and compacted days (migration 0017), described once for
 * the code that treats them alike (compaction, expiry, reads): a series' key columns, the columns carried beside
 * them, and the tables' names.
 */
export interface RollupTables {
  hours: 'thing_rollups' | 'group_rollups';
  days: 'thing_rollup_days' | 'group_rollup_days';
  /** The compacted days' packed hours. */
  dayHours: 'thing_rollup_day_hours' | 'group_rollup_day_hours';
  /** The columns naming one series (a field of a message id of a thing or group), in key order. */
  key: readonly string[];
  /** Columns carried by each row but not in the key (a thing's organization, for expiry). */
  carried: readonly string[];
  /** PostgreSQL's types of the key and carried columns, for statements that take them as arrays (`unnest`). */
  keyTypes: readonly string[];
  carriedTypes: readonly string[];
}

export const thingRollupTables: RollupTables = {
  hours: 'thing_rollups',
  days: 'thing_rollup_days',
  dayHours: 'thing_rollup_day_hours',
  key: ['tuid', 'tsm_id', 'field'],
  carried: ['organization_id'],
  keyTypes: ['text', 'int', 'text'],
  carriedTypes: ['text'],
};

export const groupRollupTables: RollupTables = {
  hours: 'group_rollups',
  days: 'group_rollup_days',
  dayHours: 'group_rollup_day_hours',
  key: ['organization_id', 'group_id', 'tsm_id', 'field'],
  carried: [],
  keyTypes: ['text', 'text', 'int', 'text'],
  carriedTypes: [],
};

export const rollupTableFamilies = [thingRollupTables, groupRollupTables] as const;

/** The figure columns, in the order the hourly codec packs them after hour_start. */
export const figureColumns = ['count', 'min', 'max', 'sum', 'first', 'first_ts', 'last', 'last_ts'] as const;

/** The tables, key condition (columns of `alias`, when given) and its parameters of a subject's rows for one field. */
export function seriesKeyOf(subject: SeriesSubject, range: { tsmId: number; field: string }, alias = '') {
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
}

/** A bucket's start and figures, selected in this order (`select ${figuresOf('day_start')} ...`). */
export const figuresOf = (start: 'hour_start' | 'day_start') => `${start}, ${figureColumns.join(', ')}`;
export type FiguresRow = [number, number, number, number, number, number, number, number, number];

/** A figures row as a bucket; Number() because PostgreSQL answers sums of bigint as numeric (text). */
export function toHourly([hourStart, count, min, max, sum, first, firstTs, last, lastTs]: FiguresRow): HourlyRollup {
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
