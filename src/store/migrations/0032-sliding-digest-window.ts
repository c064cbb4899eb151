import { sql, type Kysely } from 'kysely';

/**
 * The digest's window slides (SPEC section 13, "at most NOTIFY_DIGEST_THRESHOLD openings singly in any 60 s"):
 * `notify_digests` keeps, per (channel, rule), the messages sent in the last window (`recent_sends`, JSON
 * [time, count] pairs, times in Unix ms rounded up to a 60th of the window: at most 62 pairs) and when the pending
 * digest is sent (`digest_due_at`), instead of a fixed window's start and its count of singles.
 *
 * Rows of the fixed window carry over: its singles are taken as sent when it started (the window's count continues
 * for what is left of it), and a pending digest keeps its delivery and its due time, read from that delivery.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('notify_digests')
    .addColumn('recent_sends', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema.alterTable('notify_digests').addColumn('digest_due_at', 'bigint').execute();
  const rows = await sql<{
    channel_id: string;
    rule_key: string;
    digest_id: string | null;
    window_start: number | string;
    single_count: number;
    due_at: number | string | null;
  }>`select d.channel_id, d.rule_key, d.digest_id, d.window_start, d.single_count, w.next_attempt_at as due_at
     from notify_digests d left join webhook_deliveries w on w.id = d.digest_id and w.status = 'pending'`.execute(db);
  for (const row of rows.rows) {
    const sends = row.single_count > 0 ? [[Number(row.window_start), row.single_count]] : [];
    const dueAt = row.due_at === null ? null : Number(row.due_at);
    // A digest already sent (or gone) is no longer pending: its id is dropped with it.
    const digestId = dueAt === null ? null : row.digest_id;
    await sql`update notify_digests set recent_sends = ${JSON.stringify(sends)}, digest_due_at = ${dueAt}, digest_id = ${digestId}
      where channel_id = ${row.channel_id} and rule_key = ${row.rule_key}`.execute(db);
  }
  await db.schema.alterTable('notify_digests').dropColumn('window_start').execute();
  await db.schema.alterTable('notify_digests').dropColumn('single_count').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('notify_digests')
    .addColumn('window_start', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('notify_digests')
    .addColumn('single_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('notify_digests').dropColumn('digest_due_at').execute();
  await db.schema.alterTable('notify_digests').dropColumn('recent_sends').execute();
}
