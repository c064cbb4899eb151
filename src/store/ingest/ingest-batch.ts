import type { DeadLetterRecord, IngestBatchResult, UplinkRecord } from '../../domain/messages/message-types.js';
import type { Database } from '../database.js';
import { postgresIngestBatch } from './ingest-batch-postgres.js';
import { sqliteIngestBatch } from './ingest-batch-sqlite.js';

/**
 * Commits one batch of uplinks in one transaction: claims unknown things for the message's organization (status
 * `new`, the first entry of their installation history),
 * diverts messages for another organization's thing to the dead letters, inserts the messages (a redelivered
 * message is a no-op), updates each thing's summary and stores the dead letters. Resolves only after the commit;
 * nothing of a failed batch is kept, so its senders (unacknowledged) will send it again.
 */
export type CommitIngestBatch = (records: readonly UplinkRecord[], deadLetters: readonly DeadLetterRecord[]) => Promise<IngestBatchResult>;

export function ingestBatchWriter(database: Database): CommitIngestBatch {
  return database.driver.dialect === 'sqlite' ? sqliteIngestBatch(database.db, database.driver.connection) : postgresIngestBatch(database.driver.pool);
}

/** Who the installation history names for a thing's first sighting through an uplink. */
export const claimResponsible = 'uplink';

/** The dead-letter reason of a message whose thing another organization owns. */
export function foreignThingReason(tuid: string): string {
  return `thing ${tuid} belongs to another organization`;
}

/** The dead letter recording a message diverted because its thing belongs to another organization. */
export function foreignThingDeadLetter(record: UplinkRecord): DeadLetterRecord {
  return {
    organizationId: record.organizationId,
    receivedAt: record.receivedAt,
    source: `uplink via gateway ${record.gatewayTuid ?? 'unknown'}`,
    client: null,
    reason: foreignThingReason(record.tuid),
    payload: record.body,
  };
}
