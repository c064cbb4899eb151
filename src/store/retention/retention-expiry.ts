import type { MessageExpiryTarget, RetentionExpiry } from '../../domain/retention/retention-types.js';
import type { Database } from '../database.js';
import {
  createMessagePartitions,
  dropMessagePartitionsBefore,
  messagePartitionStart,
  messagePartitionsAheadMs,
} from './message-partitions.js';
import { deleteOrganizationMessages, deletePostgresCommandHistory, deletePostgresDeadLetters } from './postgres-expiry.js';
import { compactPostgresRawRollups, compactPostgresRollups } from '../rollups/rollup-compaction-postgres.js';
import type { SqliteExpiryJob } from './sqlite-expiry.js';

/** Rows one SQLite step removes: about a millisecond or two of the writer's time each, between ingest batches. */
export const sqliteExpiryStepRows = 1000;
/** Hourly rollup rows one compaction step goes through (a SQLite step: a few milliseconds of the writer). */
const rollupCompactionStepRows = 2000;
/**
 * Pages (4 kB) one incremental vacuum step returns. Its time is not in proportion to the pages: moving pages from
 * the end of a large file costs far more a page than dropping free ones there, and at 2,000 pages a step took up
 * to 200 ms, which a fleet's batch waited behind (issue 16's sweep: the p99 acknowledgement 13x its level before).
 */
const reclaimStepPages = 64;

/**
 * The store's side of the retention sweep. SQLite: every step runs where the uplink batches are written (the
 * writer thread), so steps and batches take turns and never wait on each other's lock. PostgreSQL: partitions
 * dropped whole, the rest in short statements (postgres-expiry.ts).
 */
export function retentionExpiry(database: Database, writer: { expire?: (job: SqliteExpiryJob) => Promise<number> }): RetentionExpiry {
  if (database.driver.dialect === 'sqlite') {
    const expire = writer.expire;
    if (!expire) throw new Error('the SQLite batch writer runs no expiry');
    return sqliteRetentionExpiry(expire);
  }
  const { db } = database;
  return {
    preparePartitions: async (now) => (await createMessagePartitions(db, now, now + messagePartitionsAheadMs)).length,
    async expireMessages(targets, longestBefore, signal) {
      const dropped = longestBefore === null ? [] : await dropMessagePartitionsBefore(db, longestBefore);
      let rows = 0;
      for (const target of targets) {
        if (signal?.aborted) break;
        // Whole weeks: what is left of a partition beyond the horizon goes when the horizon passes its end.
        const before = messagePartitionStart(target.before);
        if (target.clearedBefore !== null && target.clearedBefore >= before) continue;
        rows += await deleteOrganizationMessages(db, target.organizationId, before, target.clearedBefore, target.before, signal);
        // Not recorded when stopped half-way: the next sweep goes over these partitions again.
        if (signal?.aborted) break;
        await db.updateTable('organizations').set({ messages_cleared_before: before }).where('id', '=', target.organizationId).execute();
      }
      return { rows, partitionsDropped: dropped.length };
    },
    expireDeadLetters: (before, signal) => deletePostgresDeadLetters(db, before, signal),
    expireCommandHistory: (organizationId, before, signal) => deletePostgresCommandHistory(db, organizationId, before, signal),
    reclaimSpace: async () => 0,
    compactRollups: async (before, signal) =>
      (await compactPostgresRawRollups(db, before.rawBefore, rollupCompactionStepRows, signal)) +
      (await compactPostgresRollups(db, before.hourlyBefore, rollupCompactionStepRows, signal)),
  };
}

function sqliteRetentionExpiry(expire: (job: SqliteExpiryJob) => Promise<number>): RetentionExpiry {
  /**
   * Runs steps until one answers less than `lastBelow` (for expiry its limit; for compaction 1: its steps answer 0
   * when the pass is over); `step` is told whether it is the first. After each step it rests as long as it took: the
   * writer thread then spends at most half its time sweeping, so a fleet's batches find it free, and the second
   * core is not taken from the event loop for minutes on end (a sweep of millions of rows).
   */
  const repeat = async (step: (first: boolean) => SqliteExpiryJob, lastBelow: number, signal: AbortSignal | undefined) => {
    let total = 0;
    for (let first = true; ; first = false) {
      const started = performance.now();
      const removed = await expire(step(first));
      total += removed;
      if (removed < lastBelow || signal?.aborted) return total;
      await new Promise((resolve) => setTimeout(resolve, performance.now() - started));
    }
  };
  return {
    preparePartitions: async () => 0,
    async expireMessages(targets: readonly MessageExpiryTarget[], _longestBefore: number | null, signal?: AbortSignal) {
      let rows = 0;
      for (const { organizationId, before } of targets) {
        if (signal?.aborted) break;
        rows += await repeat(
          () => ({ kind: 'messages', organizationId, before, limit: sqliteExpiryStepRows }),
          sqliteExpiryStepRows,
          signal,
        );
      }
      return { rows, partitionsDropped: 0 };
    },
    expireDeadLetters: (before, signal) =>
      repeat(() => ({ kind: 'deadLetters', before, limit: sqliteExpiryStepRows }), sqliteExpiryStepRows, signal),
    expireCommandHistory: (organizationId, before, signal) =>
      repeat(() => ({ kind: 'commandHistory', organizationId, before, limit: sqliteExpiryStepRows }), sqliteExpiryStepRows, signal),
    reclaimSpace: (signal) => repeat(() => ({ kind: 'reclaim', pages: reclaimStepPages }), reclaimStepPages, signal),
    async compactRollups(before, signal) {
      let read = 0;
      for (const tier of ['raw', 'hourly'] as const) {
        const stepBefore = tier === 'raw' ? before.rawBefore : before.hourlyBefore;
        read += await repeat(
          (first) => ({ kind: 'compactRollups', tier, before: stepBefore, limit: rollupCompactionStepRows, restart: first }),
          1,
          signal,
        );
      }
      return read;
    },
  };
}
