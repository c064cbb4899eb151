/**
 * Migration 0032 (the digest window slides): a fixed window's row carries over: its singles as sent at its start, a
 * pending digest with its delivery and that delivery's due time, a digest already sent as none pending.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { deliveryRow } from '../../src/store/webhooks-store.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { migrateBefore } from '../helpers/migrate-before.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`migration 0032 on ${target.name}`, { skip: target.skip }, () => {
    test('fixed windows become send counts; a pending digest keeps its delivery and due time, a sent one is dropped', async () => {
      const database = await openDatabase(await target.createUrl());
      try {
        await migrateBefore(database, '0032');
        const delivery = (id: string, dueAt: number) =>
          deliveryRow({
            id,
            organizationId: 'org',
            endpointId: 'nch_a',
            eventTypes: '["alert.digest"]',
            events: '[]',
            eventCount: 1,
            nextAttemptAt: dueAt,
            createdAt: 1_000,
          });
        await database.db
          .insertInto('webhook_deliveries')
          .values([delivery('whd_pending', 61_000), delivery('whd_sent', 9_000)])
          .execute();
        await database.db.updateTable('webhook_deliveries').set({ status: 'succeeded' }).where('id', '=', 'whd_sent').execute();
        for (const [rule, start, count, digest] of [
          ['r1', 1_000, 20, 'whd_pending'],
          ['r2', 2_000, 2, null],
          ['r3', 3_000, 20, 'whd_sent'],
        ] as const)
          await sql`insert into notify_digests (channel_id, rule_key, window_start, single_count, digest_id)
            values ('nch_a', ${rule}, ${start}, ${count}, ${digest})`.execute(database.db);
        assert.ok((await migrateToLatest(database)).applied.includes('0032-sliding-digest-window'));
        const rows = await database.db.selectFrom('notify_digests').selectAll().orderBy('rule_key').execute();
        assert.deepEqual(
          rows.map((r) => ({ ...r, digest_due_at: r.digest_due_at === null ? null : Number(r.digest_due_at) })),
          [
            { channel_id: 'nch_a', rule_key: 'r1', recent_sends: '[[1000,20]]', digest_id: 'whd_pending', digest_due_at: 61_000 },
            { channel_id: 'nch_a', rule_key: 'r2', recent_sends: '[[2000,2]]', digest_id: null, digest_due_at: null },
            { channel_id: 'nch_a', rule_key: 'r3', recent_sends: '[[3000,20]]', digest_id: null, digest_due_at: null },
          ],
        );
      } finally {
        await database.close();
      }
    });
  });
}
