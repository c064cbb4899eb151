/** What a retention sweep removes, per organization and tier: messages by arrival, rollups, dead letters, command history; rawHorizon. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { dayMs } from '../../src/domain/retention/retention-rules.js';
import { rawHorizon } from '../../src/domain/retention/retention-service.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { createMessagePartitions } from '../../src/store/retention/message-partitions.js';
import { cleanupStores, openMigratedStore, storeTargets } from '../helpers/databases.js';
import { defaults, now, record, sweepTestStore, testSweeper } from './retention-sweep-helpers.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`retention sweep on ${target.name}`, { skip: target.skip }, () => {
    const context = sweepTestStore(target);

    test('messages expire by arrival, per organization: an override leaves the other organization to the default', async () => {
      const { database, store, commit, sweeper, tuidsOf } = context;
      // Weeks of old arrivals get partitions on PostgreSQL, as a store running for a year has them.
      if (database.dialect === 'postgres') await createMessagePartitions(database.db, now - 420 * dayMs, now);
      await store.retention.set('short', { messageRetentionDays: 30 });
      await commit(
        [
          record('short', 'S-60D', 1, now - 60 * dayMs),
          record('short', 'S-10D', 2, now - 10 * dayMs),
          record('long', 'L-60D', 3, now - 60 * dayMs),
          record('long', 'L-400D', 4, now - 400 * dayMs),
          // A device clock years behind (or a replayed backlog) arriving now: kept, age counts from arrival.
          record('long', 'L-OLD-TS', Math.floor(now / 1000) - 1000 * 86_400, now),
          record('short', 'S-OLD-TS', Math.floor(now / 1000) - 1000 * 86_400, now),
        ],
        [],
      );
      const report = await sweeper.sweep();
      assert.ok(report);
      assert.deepEqual(await tuidsOf('short'), ['S-10D', 'S-OLD-TS']);
      assert.deepEqual(await tuidsOf('long'), ['L-60D', 'L-OLD-TS']);
      if (database.dialect === 'postgres') {
        assert.ok(report.partitionsDropped >= 1, 'the partition of the 400-day-old arrival left whole');
        assert.equal(report.messages, 1, "the shorter retention's message deleted");
      } else assert.equal(report.messages, 2);
      // A second sweep finds nothing more.
      assert.equal((await sweeper.sweep())!.messages, 0);
    });

    test('retention 0 keeps forever; the rollup tier follows its own default and overrides', async () => {
      const { store, commit, rollupCalls, sweeper, tuidsOf } = context;
      await store.retention.set('long', { messageRetentionDays: 0, rollupRetentionDays: 90 });
      await commit([record('long', 'L-3Y', 1, now - 3 * 365 * dayMs), record('short', 'S-3Y', 2, now - 3 * 365 * dayMs)], []);
      await sweeper.sweep();
      assert.deepEqual(await tuidsOf('long'), ['L-3Y']);
      assert.deepEqual(await tuidsOf('short'), []);
      // Rollups are kept forever by default (ROLLUP_RETENTION_DAYS=0): only the organization with 90 days expires any.
      const hour = 3_600_000;
      assert.deepEqual(rollupCalls, [['long', Math.floor((now - 90 * dayMs) / hour) * hour, 2000]]);
    });

    test('rawHorizon: Unix seconds before which raw messages may be gone, null when kept forever', async () => {
      const { store, clock } = context;
      const deps = { store, clock, retentionDefaults: defaults };
      await store.retention.set('short', { messageRetentionDays: 30 });
      await store.retention.set('long', { messageRetentionDays: 0 });
      assert.equal(await rawHorizon(deps, 'short'), Math.floor((now - 30 * dayMs) / 1000));
      assert.equal(await rawHorizon(deps, 'long'), null);
      await store.retention.set('long', { messageRetentionDays: null });
      assert.equal(await rawHorizon(deps, 'long'), Math.floor((now - 365 * dayMs) / 1000));
      await assert.rejects(rawHorizon(deps, 'ghost'), { code: 'NOT_FOUND' });
    });

    test('dead letters leave after DEAD_LETTER_RETENTION_DAYS, by arrival', async () => {
      const { database, commit, sweeper } = context;
      const deadLetter = (receivedAt: number) => ({
        organizationId: 'short',
        receivedAt,
        source: 'thingdesk/short/up/GW',
        client: 'gw',
        reason: `test ${receivedAt}`,
        payload: '{}',
      });
      await commit([], [deadLetter(now - 31 * dayMs), deadLetter(now - 29 * dayMs), deadLetter(now)]);
      const report = await sweeper.sweep();
      assert.equal(report!.deadLetters, 1);
      const left = await database.db.selectFrom('dead_letters').select('received_at').orderBy('received_at').execute();
      assert.deepEqual(
        left.map((row) => row.received_at),
        [now - 29 * dayMs, now],
      );
    });

    test('command history leaves with the raw messages of its organization', async () => {
      const { database, store, sweeper } = context;
      await store.retention.set('short', { messageRetentionDays: 30 });
      for (const [organization, timestamp] of [
        ['short', now - 40 * dayMs],
        ['short', now - 20 * dayMs],
        ['long', now - 40 * dayMs],
      ] as const) {
        const request = await database.db
          .insertInto('command_requests')
          .values({ organization_id: organization, tuid: 'C-1', timestamp, responsible: 'test' })
          .returning('id')
          .executeTakeFirstOrThrow();
        await database.db
          .insertInto('command_items')
          .values({
            request_id: request.id,
            position: 0,
            tuid: 'C-1',
            transaction_id: 1,
            body: '{}',
            status: 'sent',
            response: null,
            responded_at: null,
          })
          .execute();
      }
      assert.equal((await sweeper.sweep())!.commandHistory, 1);
      const left = await database.db.selectFrom('command_requests').select(['organization_id', 'timestamp']).orderBy('timestamp').execute();
      assert.deepEqual(left, [
        { organization_id: 'long', timestamp: now - 40 * dayMs },
        { organization_id: 'short', timestamp: now - 20 * dayMs },
      ]);
      assert.equal((await database.db.selectFrom('command_items').select('request_id').execute()).length, 2);
    });
  });
}

describe('retention sweep on an in-memory SQLite store (main connection)', () => {
  test('expired messages leave, the others stay', async () => {
    const { database, store } = await openMigratedStore('file::memory:');
    const commit = ingestBatchWriter(database);
    try {
      const clock = new ManualClock(now);
      await createOrganization({ store, clock }, { name: 'Mem' });
      await commit([record('mem', 'M-OLD', 1, now - 400 * dayMs), record('mem', 'M-NEW', 2, now)], []);
      const sweeper = testSweeper({ database, store, clock, commit }, undefined);
      assert.equal((await sweeper.sweep())!.messages, 1);
      assert.equal(await store.messages.count('M-OLD'), 0);
      assert.equal(await store.messages.count('M-NEW'), 1);
    } finally {
      await commit.close();
      await database.close();
    }
  });
});
