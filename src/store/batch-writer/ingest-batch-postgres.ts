import type pg from 'pg';
import { appendClaimsPostgres, claimEntry } from './claim-audit.js';
import { messageJsonWithGroup } from '../../domain/messages/message-json.js';
import type { DeadLetterRecord, IngestBatchResult, StoredMessage, UplinkRecord } from '../../domain/messages/message-types.js';
import { summarizeMessages } from '../../domain/things/summary-rules.js';
import type { CommitIngestBatch, IngestBatchOptions } from './batch-writer-types.js';
import { combineStatements, type Statement } from './postgres-statements.js';
import { rollupStatementsPostgres } from './rollup-batch-postgres.js';
import { claimResponsible, foreignThingDeadLetter } from './ingest-rules.js';
import { summarySetClause } from './summary-update-sql.js';
import { outboxInsertPostgres, wireHandOff } from './webhook-outbox.js';
import type { OutboxRow, OutboxTargets } from '../../domain/webhooks/webhook-types.js';
import { eventJson, messageStoredData, newWebhookId, OutboxCollector } from '../../domain/webhooks/outbox-rules.js';

// Deadlock and serialization failure: two instances touched the same things in another order. The transaction
// rolled back whole, so running it again is safe.
const retryableCodes = new Set(['40P01', '40001']);
const attempts = 3;

/**
 * Every statement of a batch reaches `things` by key (the batch's TUIDs) and `messages` by key, a few hundred to
 * a thousand rows of tables many times that size. Costing random reads as if from disk, the planner scanned the
 * whole `things` table instead (a hash join for the summary update, a seq scan and sort for the row locks), every
 * batch and while holding its rows' locks, which is what serializes concurrent batches: with 10,000 things, 9 ms
 * of a 1000-message batch's update against 4 by key. Sent with BEGIN, as one simple query.
 */
const beginIngest = 'begin; set local enable_seqscan = off';

/**
 * PostgreSQL batch writer: a handful of statements per batch whatever its size, each taking whole columns as
 * array parameters through `unnest` (the bodies as one binary parameter, `packTexts`), queued in three groups, so
 * a 1000-message batch waits three times for the event loop, not a thousand (docs/mqtt.md, Ingest).
 */
export function postgresIngestBatch(pool: pg.Pool, options: IngestBatchOptions = { rollups: true }): CommitIngestBatch {
  return async (records, deadLetters) => {
    for (let attempt = 1; ; attempt++) {
      const client = await pool.connect();
      try {
        // Statements queued back to back on a client go out as soon as the previous one is answered, inside pg's
        // socket handler: no turn of the busy event loop between them, which under load was most of a batch's
        // time. So BEGIN is not awaited alone (writeBatch awaits it with its first read, before any write), and
        // COMMIT follows the last writes at once: should they fail, PostgreSQL answers that COMMIT by rolling
        // back, and the failure rejects here.
        const begun = client.query(beginIngest);
        const { result, rollupWatermarks, writes } = await writeBatch(client, begun, records, deadLetters);
        if (options.rollups) writes.push(...rollupStatementsPostgres(result.stored, (tuid) => rollupWatermarks.get(tuid) ?? 0));
        // Webhook deliveries of the stored messages, in this transaction (the outbox): one insert for the batch.
        const outbox = options.webhooks && outboxRows(result.stored, options.webhooks);
        if (outbox && outbox.length > 0) writes.push(outboxInsertPostgres(outbox));
        // The summaries, rollups and dead letters read nothing the others write: one round trip for all of them.
        const last = combineStatements(writes);
        await Promise.all([last && client.query(last.text, last.values), client.query('commit')]);
        // Committed: the deliveries written leased go to this instance's dispatcher (OutboxHandOff).
        const handedOff = outbox?.filter((row) => row.leaseUntil !== undefined);
        if (handedOff && handedOff.length > 0) options.webhooks?.handOff?.take(handedOff);
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        if (attempt >= attempts || !retryableCodes.has((error as { code?: string }).code ?? '')) throw error;
      } finally {
        client.release();
      }
    }
  };
}

async function writeBatch(
  client: pg.PoolClient,
  begun: Promise<unknown>,
  records: readonly UplinkRecord[],
  deadLetters: readonly DeadLetterRecord[],
): Promise<{ result: IngestBatchResult; rollupWatermarks: Map<string, number>; writes: Statement[] }> {
  const firstByTuid = new Map<string, UplinkRecord>();
  for (const record of records) if (!firstByTuid.has(record.tuid)) firstByTuid.set(record.tuid, record);
  const tuids = [...firstByTuid.keys()].sort();

  // Owners first: in steady state every thing is known, and one index read each is all a batch needs.
  // `version` (the row's xmin) tells later whether another batch updated the thing meanwhile (insertNewMessages).
  const readOwners = (wanted: readonly string[]) =>
    client.query<{ tuid: string; organization_id: string; group_id: string | null; version: string }>(
      'select tuid, organization_id, group_id, xmin::text as version from things where tuid = any($1::text[])',
      [wanted],
    );
  // A read, harmless should BEGIN have failed; nothing is written before BEGIN is known to have succeeded.
  const [, owners] = await Promise.all([begun, readOwners(tuids)]);
  const ownerOf = new Map(owners.rows.map((row) => [row.tuid, row]));

  // Claim unknown things; a concurrent claim by another instance wins by the primary key, then we read the owner.
  const unknown = tuids.filter((tuid) => !ownerOf.has(tuid));
  let claimed: string[] = [];
  if (unknown.length > 0) {
    const claimedRows = await client.query<{ tuid: string }>(
      `insert into things (tuid, organization_id, group_id, installation_status, created_at)
       select tuid, organization_id, null, 'new', created_at from unnest($1::text[], $2::text[], $3::bigint[]) as u(tuid, organization_id, created_at)
       on conflict do nothing returning tuid`,
      [unknown, unknown.map((t) => firstByTuid.get(t)!.organizationId), unknown.map((t) => firstByTuid.get(t)!.receivedAt)],
    );
    claimed = claimedRows.rows.map((row) => row.tuid);
    if (claimed.length > 0) {
      await client.query(
        `insert into installation_history (organization_id, tuid, installation_status, timestamp, responsible)
         select organization_id, tuid, 'new', created_at, '${claimResponsible}' from things where tuid = any($1::text[])`,
        [claimed],
      );
      const claims = claimed.map((tuid) => {
        const first = firstByTuid.get(tuid)!;
        return claimEntry(first.organizationId, tuid, first.gatewayTuid, first.receivedAt);
      });
      await appendClaimsPostgres((text, values) => client.query(text, values), claims);
    }
    for (const row of (await readOwners(unknown)).rows) ownerOf.set(row.tuid, row);
  }

  const accepted: UplinkRecord[] = [];
  const diverted: DeadLetterRecord[] = [];
  for (const record of records) {
    if (ownerOf.get(record.tuid)?.organization_id === record.organizationId) accepted.push(record);
    else diverted.push(foreignThingDeadLetter(record));
  }

  // Each message is stored as served: with the group its thing is in now, as read above (migration 0008).
  const groupOf = (record: UplinkRecord) => ownerOf.get(record.tuid)?.group_id ?? null;
  // Each record's key once: it is looked up twice below, and these strings were a measurable share of the batch.
  const keys = accepted.map((record) => messageKey(record.tuid, record.tsmTs, record.tsmId, record.fingerprint));
  // A repeat inside the batch is a duplicate of its first occurrence: the statement below cannot see its own rows.
  const firstOfKey = new Map<string, UplinkRecord>();
  accepted.forEach((record, i) => {
    if (!firstOfKey.has(keys[i]!)) firstOfKey.set(keys[i]!, record);
  });
  const unique = [...firstOfKey.values()];
  const { inserted, order } =
    unique.length === 0
      ? { inserted: [], order: new Map<string, MessageOrder>() }
      : await insertNewMessages(client, unique, groupOf, (tuid) => ownerOf.get(tuid)?.version);
  const insertedKeys = new Set(inserted.map((row) => messageKey(row.tuid, row.tsm_ts, row.tsm_id, row.fingerprint)));
  const stored: StoredMessage[] = [];
  let duplicates = 0;
  // Stored order per thing: numbered on from the row as locked, so after every batch committed before this one.
  const committedAt = Date.now();
  accepted.forEach((record, i) => {
    // A key inserted by this statement counts once (deleted from the set when taken); a repeat inside the same
    // batch is a duplicate too.
    if (!insertedKeys.delete(keys[i]!)) {
      duplicates += 1;
      return;
    }
    const thing = order.get(record.tuid);
    if (!thing) stored.push({ ...record, groupId: groupOf(record) });
    else {
      thing.seq += 1;
      stored.push(storedMessage(record, groupOf(record), thing.seq, thing.at));
      thing.at = committedAt;
    }
  });

  // The last writes are left to the caller, which sends them in one statement with the rollups.
  const writes: Statement[] = [];
  const candidates = summarizeMessages(stored).sort((a, b) => (a.tuid < b.tuid ? -1 : 1));
  if (candidates.length > 0) {
    writes.push({
      text: `update things set ${summarySetClause(
        (name) => `u.${name}`,
        (name) => `things.${name}`,
      )},
         message_seq = coalesce(u.seq, things.message_seq), message_seq_at = case when u.seq is null then things.message_seq_at else $14::bigint end
       from unnest($1::float8[], $2::text[], $3::float8[], $4::float8[], $5::text[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::bigint[], $11::text[], $12::text[], $13::bigint[])
         as u(ts, gw, bat, bat_ts, ver, ver_ts, lat, lon, loc_ts, heard_at, heard_gw, tuid, seq)
       where things.tuid = u.tuid`,
      values: [
        candidates.map((c) => c.ts),
        candidates.map((c) => c.gatewayTuid),
        candidates.map((c) => c.battery?.level ?? null),
        candidates.map((c) => c.battery?.ts ?? null),
        candidates.map((c) => c.version?.value ?? null),
        candidates.map((c) => c.version?.ts ?? null),
        candidates.map((c) => c.location?.lat ?? null),
        candidates.map((c) => c.location?.lon ?? null),
        candidates.map((c) => c.location?.ts ?? null),
        candidates.map((c) => c.heardAt),
        candidates.map((c) => c.heardGatewayTuid),
        candidates.map((c) => c.tuid),
        candidates.map((c) => order.get(c.tuid)?.seq ?? null),
        committedAt,
      ],
    });
  }

  const allDeadLetters = [...deadLetters, ...diverted];
  if (allDeadLetters.length > 0) {
    writes.push({
      text: `insert into dead_letters (organization_id, received_at, source, client, reason, payload)
       select * from unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[])`,
      values: [
        allDeadLetters.map((d) => d.organizationId),
        allDeadLetters.map((d) => d.receivedAt),
        allDeadLetters.map((d) => d.source),
        allDeadLetters.map((d) => d.client),
        allDeadLetters.map((d) => d.reason),
        allDeadLetters.map((d) => d.payload),
      ],
    });
  }
  const rollupWatermarks = new Map([...order].map(([tuid, thing]) => [tuid, thing.rollupWatermark]));
  return { result: { stored, duplicates, deadLetters: allDeadLetters, claimed }, rollupWatermarks, writes };
}

/**
 * How far back (arrival) an earlier delivery of a message is looked for. `messages` is partitioned by arrival
 * (migration 0012), so no unique key can span deliveries; the insert skips a message already stored within this
 * window instead, probing the (tuid, tsm_ts, tsm_id, fingerprint) index of the one or two newest partitions.
 * Redeliveries come when a consumer or gateway reconnects, within minutes; a week covers a platform or broker
 * that was down for days. A copy delivered again after a week is stored twice (docs/decisions.md).
 */
export const redeliveryWindowMs = 7 * 86_400_000;

/**
 * A thing's stored order as its locked row holds it: the number of its newest message and when that was committed;
 * and its rollup watermark, read under the same lock, which the compaction takes too before it moves it on.
 */
interface MessageOrder {
  seq: number;
  at: number | null;
  rollupWatermark: number;
}

/**
 * Inserts the messages not stored yet (none of their keys arrived within the redelivery window) and answers those
 * it kept, with the stored order of their things as read under the row lock. Two instances racing with one message (a redelivery to another consumer while the first still commits)
 * both insert it, neither seeing the other's uncommitted row. So, after the insert, the batch locks its things'
 * rows in TUID order (the lock its summary update takes next anyway: no new wait, no new deadlock order) and looks
 * again: a concurrent batch holding those locks has committed by then, and its copy is now visible. Copies of this
 * batch that another has committed meanwhile are deleted and count as duplicates, so the message is stored once.
 * The inserts of two batches still overlap; only this check waits for the other's commit.
 */
async function insertNewMessages(
  client: pg.PoolClient,
  records: readonly UplinkRecord[],
  groupOf: (record: UplinkRecord) => string | null,
  versionRead: (tuid: string) => string | undefined,
) {
  let oldestArrival = Infinity;
  for (const record of records) oldestArrival = Math.min(oldestArrival, record.receivedAt);
  const windowStart = oldestArrival - redeliveryWindowMs;
  // The earlier delivery is looked for by a scalar subquery with LIMIT 1, not NOT EXISTS: the planner turned the
  // anti-join into a hash join over the whole partition as it grew (store ceiling 21k rows/s); a subquery with a
  // limit runs as one index probe per message (36k, about the old primary key's cost).
  const groups = records.map(groupOf);
  const bodies = packTexts(records.map((r, i) => messageJsonWithGroup(r.body, groups[i]!)));
  const inserting = client.query<InsertedRow>(
    `insert into messages (tuid, tsm_ts, tsm_id, fingerprint, organization_id, tsm_ev, gateway_tuid, group_id, received_at, body, problems)
     select u.tuid, u.tsm_ts, u.tsm_id, u.fingerprint, u.organization_id, u.tsm_ev, u.gateway_tuid, u.group_id, u.received_at,
       convert_from(substring($10::bytea from u.body_at for u.body_bytes), 'UTF8'), u.problems
     from unnest($1::text[], $2::float8[], $3::int[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[], $9::bigint[], $11::int[], $12::int[], $13::text[])
       as u(tuid, tsm_ts, tsm_id, fingerprint, organization_id, tsm_ev, gateway_tuid, group_id, received_at, body_at, body_bytes, problems)
     where (
       select 1 from messages m
       where m.tuid = u.tuid and m.tsm_ts = u.tsm_ts and m.tsm_id = u.tsm_id and m.fingerprint = u.fingerprint and m.received_at >= $14::bigint
       limit 1) is null
     returning tuid, tsm_ts, tsm_id, fingerprint, tableoid::regclass::text as part, ctid::text as row`,
    [
      records.map((r) => r.tuid),
      records.map((r) => r.tsmTs),
      records.map((r) => r.tsmId),
      records.map((r) => r.fingerprint),
      records.map((r) => r.organizationId),
      records.map((r) => r.tsmEv),
      records.map((r) => r.gatewayTuid),
      groups,
      records.map((r) => r.receivedAt),
      bodies.bytes,
      bodies.starts,
      bodies.lengths,
      records.map((r) => (r.problems.length > 0 ? JSON.stringify(r.problems) : null)),
      windowStart,
    ],
  );
  // Every thing of the batch is locked, in TUID order, right after the insert (queued with it: one round trip for
  // both). The row as locked is the newest committed version: every batch that stored this thing's messages before
  // has committed, and none after can number its messages before this one commits (it waits for this lock). A
  // thing all of whose messages were duplicates is locked too, as its summary update would have.
  const tuids = [...new Set(records.map((r) => r.tuid))].sort();
  const locking = client.query<{ tuid: string; version: string; seq: number; at: number | null; watermark: string }>(
    `select tuid, xmin::text as version, message_seq as seq, message_seq_at as at, rollup_watermark as watermark
     from things where tuid = any($1::text[]) order by tuid for no key update`,
    [tuids],
  );
  const [{ rows }, locked] = await Promise.all([inserting, locking]);
  const order = new Map<string, MessageOrder>();
  for (const row of locked.rows) order.set(row.tuid, { seq: row.seq, at: row.at, rollupWatermark: Number(row.watermark) });
  // Every batch that stores a thing's message updates the thing's row (its summary) before it commits. A thing
  // whose row has the version read at the start of this batch had no such batch commit since, and this batch's
  // insert saw everything committed before that: only the other things' rows need the second look.
  const changed = new Set(locked.rows.filter((row) => row.version !== versionRead(row.tuid)).map((row) => row.tuid));
  if (changed.size === 0) return { inserted: rows, order };
  const suspects = rows.filter((row) => changed.has(row.tuid));
  const raced = await client.query<{ i: string }>(
    `select u.i from unnest($1::text[], $2::float8[], $3::int[], $4::text[], $5::text[], $6::tid[]) with ordinality as u(tuid, tsm_ts, tsm_id, fingerprint, part, row, i)
     where (
       select 1 from messages m
       where m.tuid = u.tuid and m.tsm_ts = u.tsm_ts and m.tsm_id = u.tsm_id and m.fingerprint = u.fingerprint and m.received_at >= $7::bigint
         and (m.tableoid::regclass::text <> u.part or m.ctid <> u.row)
       limit 1) is not null`,
    [
      suspects.map((r) => r.tuid),
      suspects.map((r) => r.tsm_ts),
      suspects.map((r) => r.tsm_id),
      suspects.map((r) => r.fingerprint),
      suspects.map((r) => r.part),
      suspects.map((r) => r.row),
      windowStart,
    ],
  );
  if (raced.rows.length === 0) return { inserted: rows, order };
  const lost = new Set(raced.rows.map((r) => suspects[Number(r.i) - 1]!));
  // By partition and row address: a TID scan each, whatever the partition's size.
  const byPartition = new Map<string, string[]>();
  for (const row of lost) byPartition.set(row.part, [...(byPartition.get(row.part) ?? []), row.row]);
  for (const [part, tids] of byPartition) await client.query(`delete from ${part} where ctid = any($1::tid[])`, [tids]);
  return { inserted: rows.filter((row) => !lost.has(row)), order };
}

/**
 * Texts as one UTF-8 buffer and where each lies in it (`starts` 1-based, as SQL's substring counts; `lengths` in
 * bytes). A Buffer goes to PostgreSQL as one binary parameter, so the message bodies skip pg's array-literal
 * escaping (a backslash before every quote of every JSON body, then the whole array as one string) on this side
 * and the array parser on the server's; `substring` of a bytea cuts by byte offset, each body in its own time.
 */
export function packTexts(texts: readonly string[]): { bytes: Buffer; starts: number[]; lengths: number[] } {
  const lengths = texts.map((text) => Buffer.byteLength(text));
  const bytes = Buffer.allocUnsafe(lengths.reduce((sum, length) => sum + length, 0));
  const starts = new Array<number>(texts.length);
  let at = 0;
  texts.forEach((text, i) => {
    starts[i] = at + 1;
    at += bytes.write(text, at);
  });
  return { bytes, starts, lengths };
}

interface InsertedRow {
  tuid: string;
  tsm_ts: number;
  tsm_id: number;
  fingerprint: string;
  /** The partition the row went to, and its address there. */
  part: string;
  row: string;
}

/**
 * A stored message built as one literal of a fixed shape: spreading the record and adding three properties cost a
 * slow-path object clone per message, the largest single item of this writer's own CPU time. Lists every field of
 * `StoredMessage` (the type checks that none required is missing).
 */
function storedMessage(record: UplinkRecord, groupId: string | null, seq: number, previousAt: number | null): StoredMessage {
  return {
    organizationId: record.organizationId,
    tuid: record.tuid,
    tsmId: record.tsmId,
    tsmEv: record.tsmEv,
    tsmTs: record.tsmTs,
    gatewayTuid: record.gatewayTuid,
    fingerprint: record.fingerprint,
    body: record.body,
    message: record.message,
    problems: record.problems,
    receivedAt: record.receivedAt,
    groupId,
    seq,
    previousAt,
  };
}

function messageKey(tuid: string, tsmTs: number, tsmId: number, fingerprint: string): string {
  return `${tuid}\u0000${tsmTs}\u0000${tsmId}\u0000${fingerprint}`;
}

/** The webhook deliveries of a batch's stored messages, for the endpoints of their organizations that want them. */
function outboxRows(stored: readonly StoredMessage[], webhooks: OutboxTargets): OutboxRow[] {
  const now = Date.now();
  const targetsOf = new Map<string, ReturnType<OutboxTargets['of']>>();
  for (const message of stored)
    if (!targetsOf.has(message.organizationId))
      targetsOf.set(
        message.organizationId,
        webhooks.of(message.organizationId).filter((t) => t.events.includes('message.stored')),
      );
  const collector = new OutboxCollector(now, webhooks.firstDelayMs, wireHandOff([...targetsOf.values()].flat(), webhooks));
  for (const message of stored) {
    const targets = targetsOf.get(message.organizationId)!;
    if (targets.length === 0) continue;
    const data = messageStoredData(messageJsonWithGroup(message.body, message.groupId), message.seq ?? null);
    collector.add(
      targets,
      { type: 'message.stored', tuid: message.tuid, groupId: message.groupId, tsmId: message.tsmId },
      eventJson(newWebhookId('evt'), 'message.stored', now, data),
    );
  }
  return collector.rows();
}
