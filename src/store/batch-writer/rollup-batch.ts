import { shownGroupId } from '../../domain/groups/unassigned-group.js';
import { hourStartOf } from '../../domain/series/rollup-rules.js';
import { addReading as fold, firstReading } from '../../domain/series/rollup-merge.js';
import type { RollupFigures } from '../../domain/series/series-types.js';

export interface ThingRollupDelta extends RollupFigures {
  organizationId: string;
  tuid: string;
  tsmId: number;
  field: string;
  hourStart: number;
}

export interface GroupRollupDelta extends RollupFigures {
  organizationId: string;
  /** The group at arrival as shown (`unassigned` for none). */
  groupId: string;
  tsmId: number;
  field: string;
  hourStart: number;
}

/**
 * Pre-aggregates the numeric fields of a batch's stored messages per rollup key before anything is written: the
 * thousands of readings of one group-hour, or a late thing's readings of one hour, become one upsert each. Fed only the
 * messages the batch inserted (a duplicate is not stored, so it is not counted). On PostgreSQL rows are taken
 * sorted by key, so two instances updating the same buckets take their row locks in the same order; SQLite has one
 * writer and skips the sort.
 */
export class RollupBatch {
  private readonly things = new Map<string, ThingRollupDelta>();
  private readonly groups = new Map<string, GroupRollupDelta>();

  /**
   * Folds one field of one stored message into its group bucket, and into its thing bucket when `late` (older than
   * the thing's rollup watermark: the thing's newer hours are rolled up from raw messages, not here).
   */
  add(
    organizationId: string,
    tuid: string,
    groupId: string | null,
    tsmId: number,
    tsmTs: number,
    field: string,
    value: number,
    late: boolean,
  ): void {
    const hourStart = hourStartOf(tsmTs);
    if (late) {
      const thingKey = `${tuid}\u0000${tsmId}\u0000${field}\u0000${hourStart}`;
      const thing = this.things.get(thingKey);
      if (thing) fold(thing, tsmTs, value);
      else this.things.set(thingKey, { organizationId, tuid, tsmId, field, hourStart, ...firstReading(tsmTs, value) });
    }
    const group = shownGroupId(groupId);
    const groupKey = `${organizationId}\u0000${group}\u0000${tsmId}\u0000${field}\u0000${hourStart}`;
    const existing = this.groups.get(groupKey);
    if (existing) fold(existing, tsmTs, value);
    else this.groups.set(groupKey, { organizationId, groupId: group, tsmId, field, hourStart, ...firstReading(tsmTs, value) });
  }

  get size(): number {
    return this.things.size + this.groups.size;
  }

  /** The thing buckets; `sorted` by key where several writers may lock the same rows (PostgreSQL). */
  thingRows(sorted = false): ThingRollupDelta[] {
    return sorted ? sortedValues(this.things) : [...this.things.values()];
  }

  groupRows(sorted = false): GroupRollupDelta[] {
    return sorted ? sortedValues(this.groups) : [...this.groups.values()];
  }
}

function sortedValues<T>(map: Map<string, T>): T[] {
  return [...map.keys()].sort().map((key) => map.get(key)!);
}

/**
 * The ON CONFLICT update that merges a batch's bucket (`excluded`) into the stored one: counts and sums add,
 * extremes widen, and first/last move only to an earlier/later (or equal, for last) `tsmTs`, so a late message
 * corrects its hour. `least`/`greatest` on PostgreSQL are SQLite's two-argument `min`/`max`.
 */
export function rollupMergeSql(dialect: 'sqlite' | 'postgres', table: string): string {
  const least = dialect === 'sqlite' ? 'min' : 'least';
  const greatest = dialect === 'sqlite' ? 'max' : 'greatest';
  const old = (column: string) => `${table}.${column}`;
  return [
    `count = ${old('count')} + excluded.count`,
    `min = ${least}(${old('min')}, excluded.min)`,
    `max = ${greatest}(${old('max')}, excluded.max)`,
    `sum = ${old('sum')} + excluded.sum`,
    `first = case when excluded.first_ts < ${old('first_ts')} then excluded.first else ${old('first')} end`,
    `first_ts = ${least}(${old('first_ts')}, excluded.first_ts)`,
    `last = case when excluded.last_ts >= ${old('last_ts')} then excluded.last else ${old('last')} end`,
    `last_ts = ${greatest}(${old('last_ts')}, excluded.last_ts)`,
  ].join(', ');
}

export const thingRollupColumns =
  'tuid, tsm_id, field, hour_start, organization_id, count, min, max, sum, first, first_ts, last, last_ts' as const;
export const groupRollupColumns =
  'organization_id, group_id, tsm_id, field, hour_start, count, min, max, sum, first, first_ts, last, last_ts' as const;
