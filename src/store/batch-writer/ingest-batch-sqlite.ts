import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Schema } from '../schema.js';
import type { DeadLetterRecord, IngestBatchResult, StoredMessage, UplinkRecord } from '../../domain/messages/message-types.js';
import { summaryFieldsOf } from '../../domain/things/summary-rules.js';
import { extractNumericFields } from '../../domain/series/rollup-rules.js';
import type { ClosableCommitIngestBatch, IngestBatchOptions } from './batch-writer-types.js';
import { foreignThingDeadLetter } from './ingest-rules.js';
import { outcome, prepareSqliteBatch, type WireBatch, type WireResult } from './sqlite-batch-transaction.js';
import { SqliteWriterThread } from './sqlite-writer-thread.js';
import type { WriterStatement } from './sqlite-writer-protocol.js';
import { wireHandOff, type WireOutbox } from './webhook-outbox.js';
import type { OutboxRow, OutboxTargets } from '../../domain/webhooks/webhook-types.js';
import { prepareSqliteExpiry, type SqliteExpiryJob } from '../retention/sqlite-expiry.js';

/**
 * SQLite batch writer. For a store file the transaction runs in a worker thread with its own connection
 * (sqlite-writer-thread.ts), so the event loop keeps serving the broker and parsing while a batch commits. The
 * thread gets only plain values (no parsed messages); this side joins its answer with the records it kept.
 *
 * An in-memory store cannot be opened twice, so there the transaction runs on the main connection, inside
 * Kysely's connection mutex: that keeps the batch from running inside another module's open transaction, where a
 * rollback would take acknowledged messages with it.
 */
export function sqliteIngestBatch(
  db: Kysely<Schema>,
  connection: SqliteDatabase.Database,
  options: IngestBatchOptions = { rollups: true },
): ClosableCommitIngestBatch {
  const toWire = (records: readonly UplinkRecord[]) => wireOf(records, options.rollups, options.webhooks);
  // Committed: the deliveries written leased go to this instance's dispatcher (OutboxHandOff).
  const handOff = (result: IngestBatchResult & { handedOff?: OutboxRow[] }): IngestBatchResult => {
    if (result.handedOff) options.webhooks?.handOff?.take(result.handedOff);
    delete result.handedOff;
    return result;
  };
  if (connection.memory) {
    const runBatch = prepareSqliteBatch(connection);
    const commit = (records: readonly UplinkRecord[], deadLetters: readonly DeadLetterRecord[]) =>
      db.connection().execute(async () => handOff(joinResult(records, deadLetters, runBatch(toWire(records), deadLetters))));
    const runExpiry = prepareSqliteExpiry(connection);
    const expire = (job: SqliteExpiryJob) => db.connection().execute(async () => runExpiry(job));
    return Object.assign(commit, { close: async () => undefined, expire });
  }
  const thread = new SqliteWriterThread(connection.name);
  const commit = async (records: readonly UplinkRecord[], deadLetters: readonly DeadLetterRecord[]) =>
    handOff(joinResult(records, deadLetters, await thread.run(toWire(records), deadLetters)));
  return Object.assign(commit, {
    close: () => thread.close(),
    expire: (job: SqliteExpiryJob) => thread.expire(job),
    statements: (statements: readonly WriterStatement[]) => thread.statements(statements),
  });
}

function wireOf(records: readonly UplinkRecord[], rollups: boolean, webhooks: OutboxTargets | undefined): WireBatch {
  const rollupFieldCount = new Uint16Array(records.length);
  const nameIndex = new Map<string, number>();
  const indexes: number[] = [];
  const values: number[] = [];
  if (rollups) {
    records.forEach((record, index) => {
      const fields = extractNumericFields(record.message);
      rollupFieldCount[index] = fields.length;
      for (const field of fields) {
        let at = nameIndex.get(field.name);
        if (at === undefined) nameIndex.set(field.name, (at = nameIndex.size));
        indexes.push(at);
        values.push(field.value);
      }
    });
  }
  return {
    organizationId: records.map((r) => r.organizationId),
    tuid: records.map((r) => r.tuid),
    tsmId: Float64Array.from(records, (r) => r.tsmId),
    tsmEv: records.map((r) => r.tsmEv),
    tsmTs: Float64Array.from(records, (r) => r.tsmTs),
    gatewayTuid: records.map((r) => r.gatewayTuid),
    fingerprint: records.map((r) => r.fingerprint),
    body: records.map((r) => r.body),
    problems: records.map((r) => (r.problems.length > 0 ? JSON.stringify(r.problems) : null)),
    receivedAt: Float64Array.from(records, (r) => r.receivedAt),
    summaryFields: records.map(summaryFieldsOf),
    rollupFieldCount,
    rollupNames: [...nameIndex.keys()],
    rollupNameIndex: Uint32Array.from(indexes),
    rollupValues: Float64Array.from(values),
    outbox: webhooks && outboxOf(records, webhooks),
  };
}

/** The endpoints of the batch's organizations that want stored messages; undefined when there are none. */
function outboxOf(records: readonly UplinkRecord[], webhooks: OutboxTargets): WireOutbox | undefined {
  const organizations = new Set<string>();
  for (const record of records) organizations.add(record.organizationId);
  const targets = [...organizations].flatMap((organizationId) =>
    webhooks.of(organizationId).filter((t) => t.events.includes('message.stored')),
  );
  return targets.length === 0 ? undefined : { targets, firstDelayMs: webhooks.firstDelayMs, handOff: wireHandOff(targets, webhooks) };
}

/** The batch's result from the writer's per-record outcomes; diverted dead letters are rebuilt in the same order. */
function joinResult(
  records: readonly UplinkRecord[],
  deadLetters: readonly DeadLetterRecord[],
  wire: WireResult,
): IngestBatchResult & { handedOff?: OutboxRow[] | undefined } {
  const stored: StoredMessage[] = [];
  const diverted: DeadLetterRecord[] = [];
  let duplicates = 0;
  records.forEach((record, index) => {
    const result = wire.outcomes[index];
    if (result === outcome.stored) {
      // The record becomes the stored message in place (nothing else holds it): no copy per message.
      const message = record as StoredMessage;
      message.groupId = wire.groups.get(record.tuid) ?? null;
      stored.push(message);
    } else if (result === outcome.duplicate) duplicates += 1;
    else diverted.push(foreignThingDeadLetter(record));
  });
  return { stored, duplicates, deadLetters: [...deadLetters, ...diverted], claimed: wire.claimed, handedOff: wire.handedOff };
}
