/**
 * De-duplication of stored messages: a redelivery, one across a partition boundary, repeats within a batch; on
 * PostgreSQL, two instances committing at once, the sweep's lease between instances, and the redelivery window.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { dayMs } from '../../src/domain/retention/retention-rules.js';
import type { Database } from '../../src/store/database.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { createMessagePartitions, messagePartitionStart, messagePartitionWidthMs } from '../../src/store/retention/message-partitions.js';
import { cleanupStores, openMigratedStore, storeTargets } from '../helpers/databases.js';
import { now, record, sweepTestStore, testSweeper } from './retention-sweep-helpers.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`retention sweep on ${target.name}`, { skip: target.skip }, () => {
    const context = sweepTestStore(target);

    test('de-duplication: a redelivery seconds later, one across a partition boundary, repeats within a batch', async () => {
      const { database, commit, tuidsOf } = context;
      const boundary = messagePartitionStart(now);
      if (database.dialect === 'postgres') await createMessagePartitions(database.db, boundary - messagePartitionWidthMs, now);
      const first = await commit([record('long', 'D-1', 100, now - 5000)], []);
      assert.equal(first.stored.length, 1);
      const again = await commit([record('long', 'D-1', 100, now)], []);
      assert.deepEqual([again.stored.length, again.duplicates], [0, 1], 'a redelivery seconds later');

      await commit([record('long', 'D-2', 200, boundary - 1000)], []);
      const across = await commit([record('long', 'D-2', 200, boundary + 1000)], []);
      assert.deepEqual([across.stored.length, across.duplicates], [0, 1], 'a redelivery in the next partition');

      const repeated = await commit(
        [record('long', 'D-3', 300, now), record('long', 'D-3', 300, now), record('long', 'D-3', 301, now)],
        [],
      );
      assert.deepEqual([repeated.stored.length, repeated.duplicates], [2, 1], 'a repeat within one batch');
      // The same time and id with another content is another message.
      const distinct = await commit([record('long', 'D-3', 300, now, { temp: 21 })], []);
      assert.equal(distinct.stored.length, 1);
      assert.deepEqual(await tuidsOf('long'), ['D-1', 'D-2', 'D-3', 'D-3', 'D-3']);
    });

    if (target.name === 'postgres') {
      test('de-duplication: two instances committing the same messages at once store each once', async () => {
        const { database, commit } = context;
        const { database: second } = await openMigratedStore(await currentUrl(database));
        const otherCommit = ingestBatchWriter(second);
        try {
          for (let round = 0; round < 20; round++) {
            // New things in some rounds (both claim), known ones in others.
            const batch = () => [
              record('long', `RACE-${round % 4}`, 1000 + round, Date.now()),
              record('long', `RACE-X`, 1000 + round, Date.now()),
            ];
            const [a, b] = await Promise.all([commit(batch(), []), otherCommit(batch(), [])]);
            assert.equal(a.stored.length + b.stored.length, 2, `round ${round}: each message stored by one instance`);
            assert.equal(a.duplicates + b.duplicates, 2, `round ${round}: and skipped by the other`);
          }
          const { rows } = await sql<{ n: number }>`select count(*)::int as n from messages where tuid like 'RACE-%'`.execute(database.db);
          assert.equal(rows[0]!.n, 40);
        } finally {
          await otherCommit.close();
          await second.close();
        }
      });

      test('one instance sweeps at a time (lease); a redelivery after the redelivery window is stored again', async () => {
        const { database, commit, sweeper } = context;
        const other = testSweeper(context, 'other-instance');
        assert.ok(await sweeper.sweep(), 'the first takes the lease');
        assert.equal(await other.sweep(), undefined, 'the other finds it held');
        await sweeper.stop();
        assert.ok(await other.sweep(), 'released at stop, taken by the other');

        const week = messagePartitionWidthMs;
        await createMessagePartitions(database.db, now - 2 * week, now);
        await commit([record('long', 'LATE-1', 1, now - 8 * dayMs)], []);
        const late = await commit([record('long', 'LATE-1', 1, now)], []);
        assert.equal(late.stored.length, 1, 'beyond the 7-day window the copy is not looked for (docs/decisions.md)');
      });
    }
  });
}

/** The URL of an open PostgreSQL store (its schema on the search path), to open a second pool on it. */
async function currentUrl(database: Database): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.searchParams.set('options', `-c search_path=${rows[0]!.schema}`);
  return url.toString();
}
