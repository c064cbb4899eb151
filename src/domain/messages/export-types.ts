/**
 * What an export reads: the messages of `tuids`, thing by thing in the order given, each thing's in primary key
 * order (tsmTs, tsmId, fingerprint ascending), with the message list's filters.
 */
export interface ExportQuery {
  tuids: readonly string[];
  /** Unix seconds of tsmTs, inclusive. */
  from?: number;
  to?: number;
  messageIds?: readonly number[];
  eventIds?: readonly number[];
}

/**
 * The bodies of an export's messages (each the message as served, `messages.body`), in order, in batches as the
 * store reads them. Pulled: the store reads ahead of the consumer by a bounded amount only, and `return()` (a
 * consumer that stops) ends the read and gives back whatever the store held for it.
 */
export type ExportBodies = AsyncIterable<readonly string[]>;
