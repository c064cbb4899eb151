import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Schema } from '../schema.js';
import type { DeadLetterRecord, IngestBatchResult, StoredMessage, UplinkRecord } from '../../domain/messages/message-types.js';
import { summarizeMessages } from '../../domain/things/summary-rules.js';
import type { CommitIngestBatch } from './ingest-batch.js';
import { claimResponsible, foreignThingDeadLetter } from './ingest-batch.js';
import { sqliteSummaryUpdateSql } from './summary-update-sql.js';

/**
 * SQLite batch writer: prepared statements in one synchronous transaction. better-sqlite3 runs a prepared insert
 * in about a microsecond, so the query builder would cost more than the work here.
 */
export function sqliteIngestBatch(db: Kysely<Schema>, connection: SqliteDatabase.Database): CommitIngestBatch {
  const selectThing = connection.prepare<[string], { organization_id: string; group_id: string | null }>(
    'select organization_id, group_id from things where tuid = ?',
  );
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
  const insertDeadLetter = connection.prepare(
    'insert into dead_letters (organization_id, received_at, source, client, reason, payload) values (?, ?, ?, ?, ?, ?)',
  );

  const commit = connection.transaction((records: readonly UplinkRecord[], deadLetters: readonly DeadLetterRecord[]): IngestBatchResult => {
    const owners = new Map<string, { organizationId: string; groupId: string | null }>();
    const claimed: string[] = [];
    const stored: StoredMessage[] = [];
    const diverted: DeadLetterRecord[] = [];
    let duplicates = 0;
    for (const record of records) {
      let owner = owners.get(record.tuid);
      if (!owner) {
        const row = selectThing.get(record.tuid);
        if (row) owner = { organizationId: row.organization_id, groupId: row.group_id };
        else {
          claimThing.run(record.tuid, record.organizationId, record.receivedAt);
          insertFirstHistory.run(record.organizationId, record.tuid, record.receivedAt);
          claimed.push(record.tuid);
          owner = { organizationId: record.organizationId, groupId: null };
        }
        owners.set(record.tuid, owner);
      }
      if (owner.organizationId !== record.organizationId) {
        diverted.push(foreignThingDeadLetter(record));
        continue;
      }
      const result = insertMessage.run(
        record.tuid,
        record.tsmTs,
        record.tsmId,
        record.fingerprint,
        record.organizationId,
        record.tsmEv,
        record.gatewayTuid,
        owner.groupId,
        record.receivedAt,
        record.body,
        record.problems.length > 0 ? JSON.stringify(record.problems) : null,
      );
      if (result.changes === 0) duplicates += 1;
      else stored.push({ ...record, groupId: owner.groupId });
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
    const allDeadLetters = [...deadLetters, ...diverted];
    for (const d of allDeadLetters) insertDeadLetter.run(d.organizationId, d.receivedAt, d.source, d.client, d.reason, d.payload);
    return { stored, duplicates, deadLetters: allDeadLetters, claimed };
  });

  // Kysely serializes its use of the one SQLite connection with a mutex, and holds it for a whole transaction.
  // Taking it here too keeps this batch from running inside another module's open transaction, where a rollback
  // would take acknowledged messages with it.
  return (records, deadLetters) => db.connection().execute(async () => commit.immediate(records, deadLetters));
}
