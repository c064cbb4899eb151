import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * PostgreSQL `messages` is partitioned by arrival (`received_at`, milliseconds) in ranges of one week, Monday
 * 00:00 UTC to the next. A week, not a day: a thing's message list reads every partition's index (the list is
 * ordered by `tsmTs`, which says nothing about arrival), so the number of partitions is a cost on every read;
 * 53 partitions hold a year. The price is precision: a partition leaves whole once all of it is past the longest
 * retention, so a message may outlive its retention by up to a week (docs/decisions.md).
 *
 * Partitions are named by the date of their first day, `messages_pYYYYMMDD`; `messages_default` takes any row
 * outside them (a clock far ahead, a sweep that did not run), so an insert never fails for want of a partition.
 */
export const messagePartitionWidthMs = 7 * 86_400_000;
/** Weeks are aligned to a Monday (1970-01-05). */
const firstMonday = Date.UTC(1970, 0, 5);
/** Partitions kept ready ahead of the platform's clock. */
export const messagePartitionsAheadMs = 2 * messagePartitionWidthMs;
export const defaultMessagePartition = 'messages_default';

/** The start of the partition holding an arrival at `ms`. */
export function messagePartitionStart(ms: number): number {
  return Math.floor((ms - firstMonday) / messagePartitionWidthMs) * messagePartitionWidthMs + firstMonday;
}

/** `messagePartitionStart` in SQL, for an expression of milliseconds. */
export function messagePartitionStartSql(ms: RawBuilder<unknown> | ReturnType<typeof sql.ref>) {
  return sql<number>`(floor((${ms} - ${sql.lit(firstMonday)}) / ${sql.lit(messagePartitionWidthMs)}::float8) * ${sql.lit(messagePartitionWidthMs)} + ${sql.lit(firstMonday)})::bigint`;
}

export function messagePartitionName(start: number): string {
  return `messages_p${new Date(start).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The start of a partition from its name, or undefined for a name of another form (the default partition). */
export function messagePartitionStartOf(name: string): number | undefined {
  const match = /^messages_p(\d{4})(\d{2})(\d{2})$/.exec(name);
  return match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : undefined;
}

// Partition DDL takes the strongest lock on `messages` for an instant; behind a long statement it would queue,
// and every insert would queue behind it. It gives up quickly instead, and the next sweep tries again.
// (Inside a migration, already in a transaction, it simply runs.)
async function withShortLockWait<DB>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<void>): Promise<void> {
  if (db.isTransaction) return work(db);
  await db.transaction().execute(async (trx) => {
    await sql`set local lock_timeout = '500ms'`.execute(trx);
    await work(trx);
  });
}

/** The week partitions of `messages` that exist, oldest first. */
export async function listMessagePartitions<DB>(db: Kysely<DB>): Promise<{ name: string; start: number }[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'messages'::regclass`.execute(db);
  return rows
    .map((row) => ({ name: row.name, start: messagePartitionStartOf(row.name) }))
    .filter((p): p is { name: string; start: number } => p.start !== undefined)
    .sort((a, b) => a.start - b.start);
}

/** Creates the missing week partitions covering arrivals from `fromMs` to `toMs`; answers the names created. */
export async function createMessagePartitions<DB>(db: Kysely<DB>, fromMs: number, toMs: number): Promise<string[]> {
  const existing = new Set((await listMessagePartitions(db)).map((p) => p.name));
  const created: string[] = [];
  for (let start = messagePartitionStart(fromMs); start <= toMs; start += messagePartitionWidthMs) {
    const name = messagePartitionName(start);
    if (existing.has(name)) continue;
    await withShortLockWait(db, async (trx) => {
      await sql`create table if not exists ${sql.id(name)} partition of messages
                for values from (${sql.lit(start)}) to (${sql.lit(start + messagePartitionWidthMs)})`.execute(trx);
    });
    created.push(name);
  }
  return created;
}

/**
 * Drops every week partition that ends at or before `beforeMs`. CONCURRENTLY is not possible here: PostgreSQL
 * refuses DETACH ... CONCURRENTLY on a table with a default partition. A plain detach holds its lock only for an
 * instant, and a short lock timeout keeps it from queueing behind (and so in front of) ingest.
 */
export async function dropMessagePartitionsBefore<DB>(db: Kysely<DB>, beforeMs: number): Promise<string[]> {
  const dropped: string[] = [];
  for (const partition of await listMessagePartitions(db)) {
    if (partition.start + messagePartitionWidthMs > beforeMs) break;
    await withShortLockWait(db, async (trx) => {
      await sql`alter table messages detach partition ${sql.id(partition.name)}`.execute(trx);
      await sql`drop table ${sql.id(partition.name)}`.execute(trx);
    });
    dropped.push(partition.name);
  }
  return dropped;
}
