// What a batch writer is, apart from the two that implement it, so that neither imports the module that chooses between them.
import type { DeadLetterRecord, IngestBatchResult, UplinkRecord } from '../../domain/messages/message-types.js';
import type { SqliteExpiryJob } from '../retention/sqlite-expiry.js';
import type { OutboxTargets } from '../../domain/webhooks/webhook-types.js';
import type { WriterStatement } from './sqlite-writer-protocol.js';

/**
 * Commits one batch of uplinks in one transaction: claims unknown things for the message's organization (status
 * `new`, the first entry of their installation history),
 * diverts messages for another organization's thing to the dead letters, inserts the messages (a redelivered
 * message is a no-op), updates each thing's summary and stores the dead letters. Resolves only after the commit;
 * nothing of a failed batch is kept, so its senders (unacknowledged) will send it again.
 */
export type CommitIngestBatch = (records: readonly UplinkRecord[], deadLetters: readonly DeadLetterRecord[]) => Promise<IngestBatchResult>;

/**
 * A batch writer that holds resources (the SQLite writer thread): `close` after the last batch. On SQLite,
 * `expire` runs one step of the retention sweep where the batches are written, between them.
 */
export type ClosableCommitIngestBatch = CommitIngestBatch & {
  close(): Promise<void>;
  expire?: (job: SqliteExpiryJob) => Promise<number>;
  /** SQLite with a writer thread: other modules' small writes, run there between batches (sqlite-writer-thread.ts). */
  statements?: (statements: readonly WriterStatement[]) => Promise<unknown[][]>;
};

/**
 * `rollups: false` leaves the hourly rollups alone: for the benchmark that measures what keeping them costs
 * (bench/lifecycle), never for a serving platform, whose series reads would miss those messages.
 */
export interface IngestBatchOptions {
  rollups: boolean;
  /** The webhook endpoints wanting `message.stored`: their deliveries are written in the batch's transaction. */
  webhooks?: OutboxTargets;
}
