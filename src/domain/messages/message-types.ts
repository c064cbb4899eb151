import type { Problem } from '../../catalog/index.js';

/** One uplink message, read and checked, ready to be stored. */
export interface UplinkRecord {
  organizationId: string;
  tuid: string;
  tsmId: number;
  tsmEv: number | null;
  /** Unix seconds as the device sent them. */
  tsmTs: number;
  /** `tsmGw` of the message, else the gateway whose topic carried it. */
  gatewayTuid: string | null;
  /** Tells a redelivery (same bytes) from a distinct message with the same id and time. */
  fingerprint: string;
  /** The message as received, as JSON text. */
  body: string;
  /** The parsed message. */
  message: Readonly<Record<string, unknown>>;
  /** Catalog warnings: the message broke a known id's rules but is stored anyway (flagged). */
  problems: readonly Problem[];
  /** Arrival on the platform's clock, milliseconds. */
  receivedAt: number;
}

/** A message as committed: with the group its thing was in when it arrived (null: none). */
export interface StoredMessage extends UplinkRecord {
  groupId: string | null;
  /**
   * Stored order per thing (PostgreSQL; absent on SQLite, whose one process emits in commit order anyway): the
   * thing's n-th stored message, numbered under its row lock in the ingest transaction, so two instances' commits
   * for one thing number in commit order. Live streams deliver by it (src/integration/stored-order.ts).
   */
  seq?: number;
  /** When the thing's message `seq - 1` was committed (the storing instance's clock, ms); null: there was none. */
  previousAt?: number | null;
}

/** Something that could not be stored as a message, kept with the reason so nothing is dropped silently. */
export interface DeadLetterRecord {
  organizationId: string | null;
  receivedAt: number;
  source: string;
  client: string | null;
  reason: string;
  payload: string;
}

export interface IngestBatchResult {
  stored: StoredMessage[];
  duplicates: number;
  deadLetters: DeadLetterRecord[];
  /** TUIDs this batch claimed for their organization (first seen). */
  claimed: string[];
}
