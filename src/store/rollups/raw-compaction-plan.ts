import { hoursOfMessages } from '../../domain/series/rollup-merge.js';
import { daySeconds, hourStartOf, hourSeconds } from '../../domain/series/rollup-rules.js';
import type { DayChunk } from './compaction-plan.js';

/** A thing whose raw messages from its rollup watermark on hold closed hours not rolled up yet. */
export interface PendingThing {
  tuid: string;
  organizationId: string;
  watermark: number;
}

/** A thing's raw messages as the compaction reads them, oldest first (the key's order). */
export type RawRow = [tsmTs: number, tsmId: number, body: string];

/**
 * Things with hours to roll up from raw, after `afterTuid` in TUID order: a watermark before the cutoff and a
 * newest message at or after it (a thing that stored nothing since is skipped; its watermark can wait).
 */
export const pendingThingsSql =
  'select tuid, organization_id, rollup_watermark from things where tuid > ? and rollup_watermark < ? and last_ts >= rollup_watermark order by tuid limit ?';

/** A thing's raw messages in [from, before), every message id, in the key's order, at most `limit`. */
export function rawRowsSql(dialect: 'sqlite' | 'postgres'): string {
  // SQLite's key scan gives (tsm_ts, tsm_id, fingerprint) order and sorts again if fingerprint is named.
  const order = dialect === 'sqlite' ? 'tsm_ts, tsm_id' : 'tsm_ts, tsm_id, fingerprint';
  return `select tsm_ts, tsm_id, body from messages where tuid = ? and tsm_ts >= ? and tsm_ts < ? order by ${order} limit ?`;
}

/**
 * How far one step takes a thing: its raw rows from the watermark read with a limit; when the limit cut them, up to
 * the start of the hour the last one read is in (that hour may have more), or the whole first hour when all of them
 * are in it (answered `rereadFirstHour`: read [watermark, until) again without a limit). A step always ends on an
 * hour's start, so the hours it rolls up are whole.
 */
export function stepEnd(rows: readonly RawRow[], limit: number, watermark: number, cutoff: number) {
  if (rows.length <= limit) return { until: cutoff, rows, rereadFirstHour: false };
  const lastHour = hourStartOf(Number(rows[limit - 1]![0]));
  if (lastHour <= watermark) return { until: watermark + hourSeconds, rows: [], rereadFirstHour: true };
  return { until: lastHour, rows: rows.filter((row) => Number(row[0]) < lastHour), rereadFirstHour: false };
}

/** A thing's raw rows as day chunks (per message id, field and UTC day), to fold into its compacted days. */
export function dayChunksOfRaw(thing: PendingThing, rows: readonly RawRow[]): DayChunk[] {
  const chunks: DayChunk[] = [];
  const messages = rows.map(([tsmTs, tsmId, body]) => ({ tsmTs: Number(tsmTs), tsmId: Number(tsmId), body }));
  for (const { tsmId, field, hours } of hoursOfMessages(messages)) {
    let current: DayChunk | undefined;
    for (const hour of hours) {
      const dayStart = Math.floor(hour.hourStart / daySeconds) * daySeconds;
      if (current?.dayStart !== dayStart) {
        current = { key: [thing.tuid, tsmId, field], carried: [thing.organizationId], dayStart, hours: [] };
        chunks.push(current);
      }
      current.hours.push(hour);
    }
  }
  return chunks;
}
