import type SqliteDatabase from 'better-sqlite3';
import { prepareSqliteCompaction } from '../rollups/rollup-compaction-sqlite.js';

/**
 * One small step of the retention sweep on SQLite. Each runs as one short transaction in the uplink writer thread
 * (or on the main connection of an in-memory store), between ingest batches, so an uplink waits at most one step.
 * Each answers how many rows (or, for `reclaim`, pages) it removed; a step that removed fewer than its limit was
 * the last of its kind.
 */
export type SqliteExpiryJob =
  /** Messages of one organization that arrived before `before` (ms). */
  | { kind: 'messages'; organizationId: string; before: number; limit: number }
  /** Dead letters that arrived before `before`. */
  | { kind: 'deadLetters'; before: number; limit: number }
  /** Command requests of one organization sent before `before`, with their items. */
  | { kind: 'commandHistory'; organizationId: string; before: number; limit: number }
  /** Returns up to `pages` free pages to the file system (incremental vacuum; nothing on a store without it). */
  | { kind: 'reclaim'; pages: number }
  /** Not expiry but the same kind of upkeep: one step of rollup compaction (rollups/rollup-compaction-sqlite.ts). */
  | { kind: 'compactRollups'; tier: 'hourly' | 'raw'; before: number; limit: number; restart: boolean };

export type SqliteExpiry = (job: SqliteExpiryJob) => number;

export function prepareSqliteExpiry(connection: SqliteDatabase.Database): SqliteExpiry {
  // By the (organization_id, received_at) index of migration 0012; the key columns come with it.
  const deleteMessages = connection.prepare<[string, number, number]>(
    `delete from messages where (tuid, tsm_ts, tsm_id, fingerprint) in (
       select tuid, tsm_ts, tsm_id, fingerprint from messages indexed by messages_organization_received
       where organization_id = ? and received_at < ? limit ?)`,
  );
  // Ids grow with arrival: the oldest `limit` ids, of which the expired ones go. A step that removes fewer than
  // it looked at has reached the first dead letter still kept.
  const deleteDeadLetters = connection.prepare<[number, number]>(
    `delete from dead_letters where id in (
       select id from (select id, received_at from dead_letters order by id limit ?) where received_at < ?)`,
  );
  const selectRequests = connection.prepare<[string, number, number], number>(
    'select id from command_requests where organization_id = ? and timestamp < ? order by timestamp limit ?',
  );
  selectRequests.pluck();
  const deleteItems = connection.prepare<[string]>('delete from command_items where request_id in (select value from json_each(?))');
  const deleteRequests = connection.prepare<[string]>('delete from command_requests where id in (select value from json_each(?))');
  const commandHistory = connection.transaction((organizationId: string, before: number, limit: number) => {
    const ids = JSON.stringify(selectRequests.all(organizationId, before, limit));
    deleteItems.run(ids);
    return deleteRequests.run(ids).changes;
  });
  const freePages = connection.prepare('pragma freelist_count').pluck();
  const autoVacuum = connection.prepare('pragma auto_vacuum').pluck();
  const compactRollups = prepareSqliteCompaction(connection);

  return (job) => {
    switch (job.kind) {
      case 'messages':
        return deleteMessages.run(job.organizationId, job.before, job.limit).changes;
      case 'deadLetters': {
        const removed = deleteDeadLetters.run(job.limit, job.before).changes;
        // Fewer than looked at: the rest is newer. Answering 0 then ends the caller's loop.
        return removed;
      }
      case 'commandHistory':
        return commandHistory.immediate(job.organizationId, job.before, job.limit);
      case 'reclaim': {
        if (autoVacuum.get() !== 2) return 0;
        const before = freePages.get() as number;
        connection.pragma(`incremental_vacuum(${Math.max(1, Math.floor(job.pages))})`);
        return before - (freePages.get() as number);
      }
      case 'compactRollups':
        return compactRollups(job);
    }
  };
}
