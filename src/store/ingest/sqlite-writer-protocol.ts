import type { DeadLetterRecord } from '../../domain/messages/message-types.js';
import type { WireBatch, WireResult } from './sqlite-batch-transaction.js';

/** What the writer thread is started with. */
export interface WriterStart {
  /** The store's file; the writer opens its own connection to it. */
  path: string;
}

export type WriterRequest =
  | { type: 'batch'; id: number; batch: WireBatch; deadLetters: readonly DeadLetterRecord[] }
  /** Sent after the last batch was answered: close the connection and end the thread. */
  | { type: 'close' };

export type WriterResponse =
  { type: 'done'; id: number; result: WireResult } | { type: 'failed'; id: number; message: string; code: string | undefined };
