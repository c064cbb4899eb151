/** One organization's messages to remove: those arrived before `before` (ms); `clearedBefore` is what an earlier sweep removed. */
export interface MessageExpiryTarget {
  organizationId: string;
  before: number;
  clearedBefore: number | null;
}

/**
 * The port through which the retention sweep removes data (implemented by the store, retention-expiry.ts). Every
 * method works in small steps that never hold ingest or reads for long, and answers what it removed. Once
 * `signal` is aborted (the platform stops), a method ends after its current step with what it removed so far.
 */
export interface RetentionExpiry {
  /** PostgreSQL: creates the message partitions ahead of `now`; answers how many were created (0 on SQLite). */
  preparePartitions(now: number): Promise<number>;
  /**
   * Removes each target organization's expired messages. `longestBefore` is the horizon of the longest retention
   * in force (null when anyone keeps forever): on PostgreSQL the partitions entirely before it are dropped whole.
   */
  expireMessages(
    targets: readonly MessageExpiryTarget[],
    longestBefore: number | null,
    signal?: AbortSignal,
  ): Promise<{ rows: number; partitionsDropped: number }>;
  expireDeadLetters(before: number, signal?: AbortSignal): Promise<number>;
  expireCommandHistory(organizationId: string, before: number, signal?: AbortSignal): Promise<number>;
  /** SQLite: returns freed pages to the file system (incremental vacuum); answers the pages returned. */
  reclaimSpace(signal?: AbortSignal): Promise<number>;
  /**
   * Compacts rollups into days (one row per series and day, which long series read): things' raw messages of the
   * hours before `rawBefore` (Unix seconds, an hour's start; each thing's rollup watermark moves there), then the
   * hourly rows (groups', and things' late messages) of UTC days before `hourlyBefore`. Answers the rows it read.
   */
  compactRollups(before: { rawBefore: number; hourlyBefore: number }, signal?: AbortSignal): Promise<number>;
}

/** What one sweep did, for metrics and the log. */
export interface SweepReport {
  messages: number;
  rollups: number;
  /** Hourly rollup rows the compaction went through (those of days that are over were folded into days). */
  rollupRowsCompacted: number;
  deadLetters: number;
  commandHistory: number;
  partitionsDropped: number;
  partitionsCreated: number;
  pagesReclaimed: number;
  /** Audit entries past AUDIT_RETENTION_DAYS (SPEC 14). */
  auditEntries: number;
  durationMs: number;
  /** Webhook delivery log rows (deliveries settled and attempts) past WEBHOOK_LOG_RETENTION_DAYS. */
  webhookLog?: number;
}
