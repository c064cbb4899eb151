import { sql, type Kysely } from 'kysely';
import type { Schema } from '../schema.js';
import { defaultMessagePartition, listMessagePartitions, messagePartitionWidthMs } from './message-partitions.js';

// Blocks of a partition one delete looks at (a TID range scan): 200 blocks of 8 kB hold a few thousand messages.
const blocksPerStep = 200;
// Rows of the default partition (normally empty) or dead letters one delete removes at most.
const rowsPerStep = 2000;

/**
 * Removes one organization's messages from the week partitions that end at or before `before` and after
 * `clearedBefore` (what an earlier sweep cleared), a range of blocks at a time: each delete is a short statement
 * on rows nobody writes any more (a partition only takes arrivals of its week), so ingest and reads never wait
 * for it. Then the default partition's expired rows of the organization.
 */
export async function deleteOrganizationMessages(
  db: Kysely<Schema>,
  organizationId: string,
  before: number,
  clearedBefore: number | null,
  defaultBefore: number,
  signal?: AbortSignal,
): Promise<number> {
  let removed = 0;
  for (const partition of await listMessagePartitions(db)) {
    const end = partition.start + messagePartitionWidthMs;
    if (end > before) break;
    if (clearedBefore !== null && end <= clearedBefore) continue;
    const size = await sql<{ blocks: number }>`
      select (pg_relation_size(${partition.name}::regclass) / current_setting('block_size')::int)::int as blocks`.execute(db);
    const blocks = Number(size.rows[0]?.blocks ?? 0);
    for (let block = 0; block < blocks && !signal?.aborted; block += blocksPerStep) {
      const result = await sql`
        delete from ${sql.id(partition.name)} where organization_id = ${organizationId}
          and ctid >= ${`(${block},0)`}::tid and ctid < ${`(${block + blocksPerStep},0)`}::tid`.execute(db);
      removed += Number(result.numAffectedRows ?? 0);
    }
  }
  while (!signal?.aborted) {
    const result = await sql`
      delete from ${sql.id(defaultMessagePartition)} where ctid = any(array(
        select ctid from ${sql.id(defaultMessagePartition)} where organization_id = ${organizationId} and received_at < ${defaultBefore}
        limit ${rowsPerStep}))`.execute(db);
    const count = Number(result.numAffectedRows ?? 0);
    removed += count;
    if (count < rowsPerStep) break;
  }
  return removed;
}

/** Dead letters that arrived before `before`, in steps of the oldest ids (ids grow with arrival). */
export async function deletePostgresDeadLetters(db: Kysely<Schema>, before: number, signal?: AbortSignal): Promise<number> {
  let removed = 0;
  for (;;) {
    const result = await sql`
      delete from dead_letters where id in (
        select id from (select id, received_at from dead_letters order by id limit ${rowsPerStep}) oldest where received_at < ${before})`.execute(
      db,
    );
    const count = Number(result.numAffectedRows ?? 0);
    removed += count;
    if (count < rowsPerStep || signal?.aborted) return removed;
  }
}

/** An organization's command requests sent before `before`, with their items, a step at a time. */
export async function deletePostgresCommandHistory(
  db: Kysely<Schema>,
  organizationId: string,
  before: number,
  signal?: AbortSignal,
): Promise<number> {
  let removed = 0;
  for (;;) {
    const count = await db.transaction().execute(async (trx) => {
      const ids = (
        await trx
          .selectFrom('command_requests')
          .select('id')
          .where('organization_id', '=', organizationId)
          .where('timestamp', '<', before)
          .orderBy('timestamp')
          .limit(rowsPerStep)
          .execute()
      ).map((row) => row.id);
      if (ids.length === 0) return 0;
      await trx.deleteFrom('command_items').where('request_id', 'in', ids).execute();
      const result = await trx.deleteFrom('command_requests').where('id', 'in', ids).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
    removed += count;
    if (count < rowsPerStep || signal?.aborted) return removed;
  }
}
