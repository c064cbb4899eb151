/** One page of a thing's messages for an export, read in primary key order after a key (keyset paging). */
export interface ExportPageQuery {
  tuid: string;
  /** Unix seconds of tsmTs, inclusive. */
  from?: number;
  to?: number;
  messageIds?: readonly number[];
  eventIds?: readonly number[];
  /** The key of the last row of the previous page; absent for the first page. */
  after?: ExportRowKey;
  limit: number;
}

/** A message's place in the primary key (tuid aside): what the next page starts after. */
export interface ExportRowKey {
  tsmTs: number;
  tsmId: number;
  fingerprint: string;
}

/** A row of an export page: its key and the message as served (`messages.body`). */
export interface ExportRow extends ExportRowKey {
  body: string;
}
