/** A long retention sweep on SQLite: ingest is answered during it, stopping the platform ends it early, and the freed space is returned. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { dayMs } from '../../src/domain/retention/retention-rules.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { now, record, sweepTestStore } from './retention-sweep-helpers.js';

after(cleanupStores);

for (const target of storeTargets.filter((t) => t.name === 'sqlite')) {
  describe(`retention sweep on ${target.name}`, { skip: target.skip }, () => {
    const context = sweepTestStore(target);

    test('SQLite: an ingest batch committed during a long sweep is answered before the sweep ends', async () => {
      const { commit, sweeper, tuidsOf } = context;
      const old = now - 400 * dayMs;
      for (let batch = 0; batch < 10; batch++)
        await commit(
          Array.from({ length: 2000 }, (_, i) => record('long', `OLD-${i % 50}`, batch * 2000 + i, old)),
          [],
        );
      let sweepDone = false;
      const sweeping = sweeper.sweep().then((report) => {
        sweepDone = true;
        return report;
      });
      const fresh = await commit([record('long', 'FRESH', 1, now)], []);
      assert.equal(fresh.stored.length, 1);
      assert.equal(sweepDone, false, 'the batch did not wait for the whole sweep');
      assert.equal((await sweeping)!.messages, 20_000);
      assert.deepEqual(await tuidsOf('long'), ['FRESH']);
    });

    test('SQLite: stopping the platform ends a long sweep after its current step', async () => {
      const { database, commit, sweeper } = context;
      for (let batch = 0; batch < 10; batch++)
        await commit(
          Array.from({ length: 2000 }, (_, i) => record('long', `STOP-${i % 50}`, batch * 2000 + i, now - 400 * dayMs)),
          [],
        );
      const sweeping = sweeper.sweep();
      await sweeper.stop();
      const report = await sweeping;
      assert.ok(report!.messages < 20_000, `stopped early: ${report!.messages} removed`);
      const { rows } = await sql<{ n: number }>`select count(*) as n from messages`.execute(database.db);
      assert.equal(Number(rows[0]!.n), 20_000 - report!.messages);
    });

    test('SQLite: a new store returns freed space (incremental vacuum)', async () => {
      const { database, commit, sweeper } = context;
      if (database.driver.dialect !== 'sqlite') return;
      const connection = database.driver.connection;
      assert.equal(connection.pragma('auto_vacuum', { simple: true }), 2, 'incremental');
      const big = 'x'.repeat(2000);
      for (let batch = 0; batch < 5; batch++)
        await commit(
          Array.from({ length: 1000 }, (_, i) => record('long', `BIG-${i % 10}`, batch * 1000 + i, now - 400 * dayMs, { note: big })),
          [],
        );
      const pages = () => connection.pragma('page_count', { simple: true }) as number;
      const before = pages();
      const report = await sweeper.sweep();
      assert.equal(report!.messages, 5000);
      assert.ok(report!.pagesReclaimed > 1000, `pages returned: ${report!.pagesReclaimed}`);
      assert.ok(pages() < before / 2, `file shrank from ${before} to ${pages()} pages`);
    });
  });
}
