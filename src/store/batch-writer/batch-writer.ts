import type { Database } from '../database.js';
import type { ClosableCommitIngestBatch, IngestBatchOptions } from './batch-writer-types.js';
import { postgresIngestBatch } from './ingest-batch-postgres.js';
import { sqliteIngestBatch } from './ingest-batch-sqlite.js';

export function ingestBatchWriter(database: Database, options: IngestBatchOptions = { rollups: true }): ClosableCommitIngestBatch {
  if (database.driver.dialect === 'sqlite') return sqliteIngestBatch(database.db, database.driver.connection, options);
  return Object.assign(postgresIngestBatch(database.driver.pool, options), { close: async () => undefined });
}

export type { ClosableCommitIngestBatch, CommitIngestBatch, IngestBatchOptions } from './batch-writer-types.js';
export { claimResponsible, foreignThingDeadLetter, foreignThingReason } from './ingest-rules.js';
