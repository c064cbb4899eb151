import type { DeadLetterRecord } from '../../domain/messages/message-types.js';
import type { SqliteExpiryJob } from '../retention/sqlite-expiry.js';
import type { WireBatch, WireResult } from './sqlite-batch-transaction.js';

/** What the writer thread is started with. */
export interface WriterStart {
  /** The store's file; the writer opens its own connection to it. */
  path: string;
}

export type WriterRequest =
  | { type: 'batch'; id: number; batch: WireBatch; deadLetters: readonly DeadLetterRecord[] }
  /** One small step of the retention sweep, run between batches (retention/sqlite-expiry.ts). */
  | { type: 'expire'; id: number; job: SqliteExpiryJob }
  /** Small writes of other modules (the webhook dispatcher's), in one transaction between batches. */
  | { type: 'statements'; id: number; statements: readonly WriterStatement[] }
  /** Sent after the last batch was answered: close the connection and end the thread. */
  | { type: 'close' };

export type WriterResponse =
  | { type: 'done'; id: number; result: WireResult }
  | { type: 'expired'; id: number; removed: number }
  /** The rows each statement returned (empty for one that returns none), in order. */
  | { type: 'ran'; id: number; rows: unknown[][] }
  | { type: 'failed'; id: number; message: string; code: string | undefined };

/**
 * One compiled statement (Kysely's `compile()`): its SQL and its parameters; or one SQL text run once per entry of
 * `each` (a group of attempt records: the text crosses to the thread once, not once per row).
 */
export type WriterStatement = { sql: string; parameters: readonly unknown[] } | { sql: string; each: readonly (readonly unknown[])[] };
