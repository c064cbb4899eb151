/**
 * Messages in weekly partitions: a thing's messages read in order across them; on PostgreSQL the sweep creates weeks
 * ahead and drops expired ones whole.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { dayMs } from '../../src/domain/retention/retention-rules.js';
import {
  createMessagePartitions,
  listMessagePartitions,
  messagePartitionStart,
  messagePartitionWidthMs,
} from '../../src/store/retention/message-partitions.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { now, record, sweepTestStore } from './retention-sweep-helpers.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`retention sweep on ${target.name}`, { skip: target.skip }, () => {
    const context = sweepTestStore(target);

    test("a thing's messages stay newest first by tsmTs when they arrived in different weeks (partitions)", async () => {
      const { database, store, commit } = context;
      const week = messagePartitionWidthMs;
      if (database.dialect === 'postgres') await createMessagePartitions(database.db, now - 3 * week, now);
      // Arrival order is the reverse of device time: a gateway replaying its backlog after a newer report.
      await commit([record('long', 'P-1', 300, now - 2 * week)], []);
      await commit([record('long', 'P-1', 200, now - week)], []);
      await commit([record('long', 'P-1', 100, now)], []);
      const listed = await store.messages.listJson({ tuid: 'P-1', limit: 10 });
      assert.deepEqual(
        listed.map((body) => (JSON.parse(body) as { tsmTs: number }).tsmTs),
        [300, 200, 100],
      );
      const ranged = await store.messages.listJson({ tuid: 'P-1', from: 150, to: 250, limit: 10 });
      assert.equal(ranged.length, 1);
    });

    if (target.name === 'postgres') {
      test('partitions: created ahead of the clock, a default partition, expired weeks dropped whole', async () => {
        const { database, clock, sweeper } = context;
        const week = messagePartitionWidthMs;
        const names = async () => (await listMessagePartitions(database.db)).map((p) => p.start);
        clock.set(now + 3 * week);
        const report = await sweeper.sweep();
        assert.ok(report!.partitionsCreated >= 1, 'the weeks ahead of the moved clock');
        const starts = await names();
        for (let start = messagePartitionStart(now + 3 * week); start <= now + 5 * week; start += week) assert.ok(starts.includes(start));
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_inherits i join pg_class c on c.oid = i.inhrelid
          where i.inhparent = 'messages'::regclass and c.relname = 'messages_default'`.execute(database.db);
        assert.equal(rows[0]!.n, 1);

        // A year and more later every week before the longest retention (365 days) is gone.
        clock.set(now + 400 * dayMs);
        const later = await sweeper.sweep();
        assert.ok(later!.partitionsDropped >= 2);
        const horizon = now + 400 * dayMs - 365 * dayMs;
        for (const start of await names())
          assert.ok(start + week > horizon, `no week before the horizon is left (${new Date(start).toISOString()})`);
      });
    }
  });
}
