import { createHash } from 'node:crypto';
import { hoursOfReadings } from '../../domain/series/rollup-merge.js';
import { directReadMaxBodyLength, floorTo, hourSeconds, rawReadOf, rawValueOf } from '../../domain/series/rollup-rules.js';
import type { HourlyRollup, RawMessage, RawRun, RollupRange, SeriesSubject } from '../../domain/series/series-types.js';
import { knownCounts, select, type Plan } from './read-plan.js';

/** Messages a raw tail reads per statement: its hours are folded page by page, never a year of rows at once. */
export const rawTailPageSize = 10_000;

/** The read plans of a series over raw messages (see rollupsStore): a subject's messages, a thing's raw tail and raw runs. */
export function rawReadPlans(dialect: 'sqlite' | 'postgres') {
  const sqlite = dialect === 'sqlite';
  /**
   * A subject's stored messages of one id with tsmTs in [from, to], oldest first, at most `limit`. A group's read
   * that comes back full (`limit` messages) holds some `limit` of them, not the oldest: enough to tell that there
   * are that many, which is all a full read is used for (series-query.ts refuses it or reads again with more). With
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
    // Unordered: an ordered read had to sort every message of the group in the range before it could stop at
    // `limit`, so a request over maxPoints (which only needs to know there are more) read the whole range, twenty
    // times over for twenty aliases (issue 32). Without the order the read stops at `limit`; when fewer come back
    // they are all of them, sorted here in the order the ordered read gave.
    const group = subject.groupId === null ? 'm.group_id is null' : 'm.group_id = ?';
    const rows = yield* select<[...RawRow, string, string]>(
      `select ${columns}, m.tuid, m.fingerprint from things t join messages m on m.tuid = t.tuid
       where t.organization_id = ? and m.organization_id = t.organization_id and m.tsm_ts >= ? and m.tsm_ts <= ? and m.tsm_id = ? and ${group}
       limit ?`,
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
    if (rows.length < read.limit) rows.sort(byTimeThingFingerprint);
    return rows.map(([tsmTs, member, body]) => toMessage([tsmTs, member, body]));
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
    let from = Math.max(range.fromHour, Number(row[0]));
    // Every message of the last bucket the range holds (the hour `toHour` is in); tsmTs may have a fraction.
    const to = floorTo(range.toHour, hourSeconds) + hourSeconds - 1e-6;
    const field = read === 'direct' ? range.field : null;
    const hours: HourlyRollup[] = [];
    // In pages of whole hours (a thing never compacted may hold a year of raw messages after its watermark): a full
    // page keeps the hours before its last one, which the next page starts with; a page all of one hour reads that
    // hour whole.
    while (from <= to) {
      let messages = yield* rawMessagesPlan(subject, { tsmId: range.tsmId, field, from, to, limit: rawTailPageSize });
      let next = Infinity;
      if (messages.length === rawTailPageSize) {
        const lastHour = floorTo(messages.at(-1)!.tsmTs, hourSeconds);
        if (lastHour > from) {
          messages = messages.filter((message) => message.tsmTs < lastHour);
          next = lastHour;
        } else {
          next = lastHour + hourSeconds;
          const hourEnd = Math.min(to, next - 1e-6);
          messages = yield* rawMessagesPlan(subject, { tsmId: range.tsmId, field, from, to: hourEnd, limit: Number.MAX_SAFE_INTEGER });
        }
      }
      const readings: { ts: number; value: number }[] = [];
      for (const message of messages) {
        const value = rawValueOf(message, range.field);
        if (value !== null) readings.push({ ts: message.tsmTs, value });
      }
      hours.push(...hoursOfReadings(readings));
      from = next;
    }
    return hours;
  }

  /**
   * A thing's raw messages of one id in [from, to] as runs per UTC hour (see RawRun), each with an etag made of its
   * messages' keys: a stored message's fingerprint stands for its body, and a key is stored once, so the same keys
   * are the same points. An hour whose etag the caller holds (asked once for all, see knownCounts) is not read. The
   * keys first, of at most `limit` messages; when the range holds that many (it may hold more), undefined: the
   * caller reads without runs.
   */
  function* rawRunsPlan(
    subject: { tuid: string },
    read: { tsmId: number; field: string; from: number; to: number; limit: number },
  ): Plan<RawRun[] | undefined> {
    const hourOf = sqlite ? 'cast(tsm_ts / 3600 as integer)' : 'floor(tsm_ts / 3600)::bigint';
    // In the order the rows come (the key's, in practice), not sorted again (a third of the read): the same keys in
    // another order would give another etag, a run made again, never a wrong one.
    const keys = `${sqlite ? 'group_concat' : 'string_agg'}(fingerprint, ',')`;
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
    const etags = hours.map(([hour, , fingerprints]) => {
      const keyed = `${subject.tuid}\n${read.tsmId}\n${read.field}\n${Number(hour) * hourSeconds}\n${fingerprints}`;
      return `raw:${createHash('sha256').update(keyed).digest('base64url')}`;
    });
    const counts = yield* knownCounts(etags);
    hours.forEach(([hour], index) => {
      const etag = etags[index]!;
      const count = counts[index];
      if (count !== null && count !== undefined) runs.push({ messages: null, etag, count });
      else {
        const run = { messages: [] as RawMessage[], etag };
        runs.push(run);
        unread.push({ run, hourStart: Number(hour) * hourSeconds });
      }
    });
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

  return { rawMessagesPlan, rawTail, rawRunsPlan };
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

/** The order of a group's raw messages: time, then thing, then fingerprint (code-unit order; TUIDs and fingerprints are ASCII). */
function byTimeThingFingerprint(a: readonly unknown[], b: readonly unknown[]): number {
  const byTime = Number(a[0]) - Number(b[0]);
  if (byTime !== 0) return byTime;
  const [thingA, thingB, fingerprintA, fingerprintB] = [String(a[3]), String(b[3]), String(a[4]), String(b[4])];
  if (thingA !== thingB) return thingA < thingB ? -1 : 1;
  return fingerprintA < fingerprintB ? -1 : fingerprintA > fingerprintB ? 1 : 0;
}
