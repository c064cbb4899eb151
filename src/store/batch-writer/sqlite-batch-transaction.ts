import type SqliteDatabase from 'better-sqlite3';
import { claimEntry, sqliteClaimAppender } from './claim-audit.js';
import { messageJsonWithGroup } from '../../domain/messages/message-json.js';
import type { DeadLetterRecord } from '../../domain/messages/message-types.js';
import type { OutboxRow } from '../../domain/webhooks/webhook-types.js';
import { summarizeMessages, type SummarySource } from '../../domain/things/summary-rules.js';
import { claimResponsible, foreignThingDeadLetter } from './ingest-rules.js';
import { groupRollupColumns, RollupBatch, rollupMergeSql, thingRollupColumns } from './rollup-batch.js';
import { sqliteSummaryUpdateSql } from './summary-update-sql.js';
import { outboxInsertSqlite, type WireOutbox } from './webhook-outbox.js';
import { eventJson, messageStoredData, newWebhookId, OutboxCollector } from '../../domain/webhooks/outbox-rules.js';

/**
 * A batch of uplink records as the SQLite writer needs them, by column: plain values that cross a thread boundary
 * cheaply (cloning 2,000 record objects cost about three times as much as these arrays). No parsed messages:
 * `summaryFields` holds only the fields the summary reads (`summaryFieldsOf`), null for most records; `problems`
 * is the JSON text stored in the row.
 */
export interface WireBatch {
  organizationId: string[];
  tuid: string[];
  tsmId: Float64Array;
  tsmEv: (number | null)[];
  tsmTs: Float64Array;
  gatewayTuid: (string | null)[];
  fingerprint: string[];
  body: string[];
  problems: (string | null)[];
  receivedAt: Float64Array;
  summaryFields: (Readonly<Record<string, unknown>> | null)[];
  /**
   * The rolled-up numeric fields (rollup-rules.ts), flattened: record i owns the next `rollupFieldCount[i]`
   * entries of `rollupNameIndex`/`rollupValues`; a field's name is `rollupNames[rollupNameIndex[j]]` (each distinct
   * name crosses the thread boundary once per batch). All counts are 0 when rollups are off.
   */
  rollupFieldCount: Uint16Array;
  rollupNames: string[];
  rollupNameIndex: Uint32Array;
  rollupValues: Float64Array;
  /** The webhook endpoints wanting these messages (undefined: none): a delivery row is written for each. */
  outbox?: WireOutbox | undefined;
}

/** Transferable (moved, not copied) parts of a batch. */
export function transferablesOf(batch: WireBatch): ArrayBuffer[] {
  return [
    batch.tsmId.buffer,
    batch.tsmTs.buffer,
    batch.receivedAt.buffer,
    batch.rollupFieldCount.buffer,
    batch.rollupNameIndex.buffer,
    batch.rollupValues.buffer,
  ] as ArrayBuffer[];
}

const noFields: Readonly<Record<string, unknown>> = Object.freeze({});

export const outcome = { stored: 0, duplicate: 1, diverted: 2 } as const;

/** What the writer tells about a committed batch; the caller joins it with its records. */
export interface WireResult {
  /** Per record, in order: `outcome.stored`, `.duplicate`, or `.diverted` (another organization's thing). */
  outcomes: Uint8Array;
  /** The group of each thing that had a message stored. */
  groups: Map<string, string | null>;
  /** TUIDs this batch claimed. */
  claimed: string[];
  /** The webhook deliveries written leased for this instance's dispatcher (OutboxHandOff). */
  handedOff?: OutboxRow[];
}

export type SqliteBatchTransaction = (batch: WireBatch, deadLetters: readonly DeadLetterRecord[]) => WireResult;

/**
 * The SQLite batch: prepared statements in one `begin immediate` transaction (claim unknown things with their
 * first history entry, divert other organizations' things to dead letters, insert messages as served (with
 * `deploymentGroupId`) with ON CONFLICT DO NOTHING, apply the guarded summary updates of the stored ones, merge
 * the stored ones' numeric fields into the hourly group rollups, and into a thing's only when older than its rollup
 * watermark (pre-aggregated per bucket, one upsert each), store dead
 * letters). better-sqlite3 runs a prepared insert in about a microsecond, so the query builder would cost more than
 * the work. Runs in the writer thread (or in the main thread for an in-memory store); returns only
 * after COMMIT.
 */
export function prepareSqliteBatch(connection: SqliteDatabase.Database): SqliteBatchTransaction {
  const selectThing = connection.prepare<
    [string],
    { organization_id: string; group_id: string | null; rollup_watermark: number; message_seq: number }
  >('select organization_id, group_id, rollup_watermark, message_seq from things where tuid = ?');
  // Each thing's stored sequence number (migration 0016), which webhooks' `message.stored` carries.
  const updateSeq = connection.prepare('update things set message_seq = ? where tuid = ?');
  const insertDelivery = connection.prepare(outboxInsertSqlite);
  const claimThing = connection.prepare(
    "insert into things (tuid, organization_id, group_id, installation_status, created_at) values (?, ?, null, 'new', ?) on conflict do nothing",
  );
  const insertFirstHistory = connection.prepare(
    `insert into installation_history (organization_id, tuid, installation_status, timestamp, responsible) values (?, ?, 'new', ?, '${claimResponsible}')`,
  );
  const insertMessage = connection.prepare(
    `insert into messages (tuid, tsm_ts, tsm_id, fingerprint, organization_id, tsm_ev, gateway_tuid, group_id, received_at, body, problems)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
  );
  const updateSummary = connection.prepare(sqliteSummaryUpdateSql());
  const upsertThingRollup = connection.prepare(
    `insert into thing_rollups (${thingRollupColumns}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (tuid, tsm_id, field, hour_start) do update set ${rollupMergeSql('sqlite', 'thing_rollups')}`,
  );
  const upsertGroupRollup = connection.prepare(
    `insert into group_rollups (${groupRollupColumns}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (organization_id, group_id, tsm_id, field, hour_start) do update set ${rollupMergeSql('sqlite', 'group_rollups')}`,
  );
  const insertDeadLetter = connection.prepare(
    'insert into dead_letters (organization_id, received_at, source, client, reason, payload) values (?, ?, ?, ?, ?, ?)',
  );

  const appendClaim = sqliteClaimAppender(connection as never);

  const transaction = connection.transaction((batch: WireBatch, deadLetters: readonly DeadLetterRecord[]): WireResult => {
    const owners = new Map<
      string,
      { organizationId: string; groupId: string | null; rollupWatermark: number; seq: number; seqFrom: number }
    >();
    const outbox = batch.outbox;
    const now = Date.now();
    const collector = outbox && new OutboxCollector(now, outbox.firstDelayMs, outbox.handOff);
    const targetsOf = new Map<string, WireOutbox['targets']>();
    for (const target of outbox?.targets ?? [])
      targetsOf.set(target.organizationId, [...(targetsOf.get(target.organizationId) ?? []), target]);
    const outcomes = new Uint8Array(batch.tuid.length);
    const groups = new Map<string, string | null>();
    const claimed: string[] = [];
    const stored: SummarySource[] = [];
    const diverted: DeadLetterRecord[] = [];
    const rollups = new RollupBatch();
    let fieldEnd = 0;
    for (let index = 0; index < outcomes.length; index++) {
      // This record's rolled-up fields, advanced first: every record owns its slice, stored or not.
      const fieldStart = fieldEnd;
      fieldEnd += batch.rollupFieldCount[index]!;
      const tuid = batch.tuid[index]!;
      const organizationId = batch.organizationId[index]!;
      const receivedAt = batch.receivedAt[index]!;
      const gatewayTuid = batch.gatewayTuid[index]!;
      let owner = owners.get(tuid);
      if (!owner) {
        const row = selectThing.get(tuid);
        if (row)
          owner = {
            organizationId: row.organization_id,
            groupId: row.group_id,
            rollupWatermark: row.rollup_watermark,
            seq: row.message_seq,
            seqFrom: row.message_seq,
          };
        else {
          claimThing.run(tuid, organizationId, receivedAt);
          insertFirstHistory.run(organizationId, tuid, receivedAt);
          appendClaim(claimEntry(organizationId, tuid, gatewayTuid, receivedAt));
          claimed.push(tuid);
          // A new thing's rollups all come from its raw messages (migration 0018).
          owner = { organizationId, groupId: null, rollupWatermark: 0, seq: 0, seqFrom: 0 };
        }
        owners.set(tuid, owner);
      }
      if (owner.organizationId !== organizationId) {
        outcomes[index] = outcome.diverted;
        diverted.push(foreignThingDeadLetter({ organizationId, receivedAt, gatewayTuid, tuid, body: batch.body[index]! }));
        continue;
      }
      const tsmId = batch.tsmId[index]!;
      const tsmTs = batch.tsmTs[index]!;
      const served = messageJsonWithGroup(batch.body[index]!, owner.groupId);
      const result = insertMessage.run(
        tuid,
        tsmTs,
        tsmId,
        batch.fingerprint[index]!,
        organizationId,
        batch.tsmEv[index]!,
        gatewayTuid,
        owner.groupId,
        receivedAt,
        served,
        batch.problems[index]!,
      );
      if (result.changes === 0) outcomes[index] = outcome.duplicate;
      else {
        outcomes[index] = outcome.stored;
        owner.seq += 1;
        if (collector) {
          const subject = { type: 'message.stored', tuid, groupId: owner.groupId, tsmId };
          const targets = targetsOf.get(organizationId);
          if (targets)
            collector.add(targets, subject, eventJson(newWebhookId('evt'), 'message.stored', now, messageStoredData(served, owner.seq)));
        }
        stored.push({ tuid, tsmId, tsmTs, gatewayTuid, receivedAt, message: batch.summaryFields[index] ?? noFields });
        groups.set(tuid, owner.groupId);
        const late = tsmTs < owner.rollupWatermark;
        for (let field = fieldStart; field < fieldEnd; field++)
          rollups.add(
            organizationId,
            tuid,
            owner.groupId,
            tsmId,
            tsmTs,
            batch.rollupNames[batch.rollupNameIndex[field]!]!,
            batch.rollupValues[field]!,
            late,
          );
      }
    }
    for (const c of summarizeMessages(stored)) {
      updateSummary.run({
        ts: c.ts,
        gw: c.gatewayTuid,
        bat: c.battery?.level ?? null,
        bat_ts: c.battery?.ts ?? null,
        ver: c.version?.value ?? null,
        ver_ts: c.version?.ts ?? null,
        lat: c.location?.lat ?? null,
        lon: c.location?.lon ?? null,
        loc_ts: c.location?.ts ?? null,
        heard_at: c.heardAt,
        heard_gw: c.heardGatewayTuid,
        tuid: c.tuid,
      });
    }
    for (const r of rollups.thingRows())
      upsertThingRollup.run(
        r.tuid,
        r.tsmId,
        r.field,
        r.hourStart,
        r.organizationId,
        r.count,
        r.min,
        r.max,
        r.sum,
        r.first,
        r.firstTs,
        r.last,
        r.lastTs,
      );
    for (const r of rollups.groupRows())
      upsertGroupRollup.run(
        r.organizationId,
        r.groupId,
        r.tsmId,
        r.field,
        r.hourStart,
        r.count,
        r.min,
        r.max,
        r.sum,
        r.first,
        r.firstTs,
        r.last,
        r.lastTs,
      );
    for (const [tuid, owner] of owners) if (owner.seq !== owner.seqFrom) updateSeq.run(owner.seq, tuid);
    const handedOff: OutboxRow[] = [];
    if (collector)
      for (const row of collector.rows()) {
        insertDelivery.run(
          row.id,
          row.organizationId,
          row.endpointId,
          row.eventTypes,
          row.events,
          row.eventCount,
          row.nextAttemptAt,
          row.leaseUntil ?? null,
          row.createdAt,
          row.createdAt,
        );
        if (row.leaseUntil !== undefined) handedOff.push(row);
      }
    for (const d of [...deadLetters, ...diverted])
      insertDeadLetter.run(d.organizationId, d.receivedAt, d.source, d.client, d.reason, d.payload);
    return { outcomes, groups, claimed, ...(handedOff.length > 0 && { handedOff }) };
  });
  return (batch, deadLetters) => transaction.immediate(batch, deadLetters);
}
