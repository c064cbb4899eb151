import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { systemClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { ingestBatchWriter, type IngestBatchOptions } from '../../src/store/batch-writer/batch-writer.js';
import { cleanupStores, openMigratedStore, storeTargets } from '../helpers/databases.js';

after(cleanupStores);

const hour = 3600;
const t0 = 1_790_035_200;
const records = (organizationId: string, messages: Record<string, unknown>[]) =>
  parseUplink(JSON.stringify(messages), { organizationId, gatewayTuid: 'GW', source: 'test', client: null, receivedAt: Date.now() })
    .records;
const temp = (tuid: string, tsmTs: number, value: number) => ({ tsmId: 12100, tsmTs, tsmTuid: tuid, temp: value });
const range = { tsmId: 12100, field: 'temp', fromHour: 0, toHour: 2 ** 40 };

async function storeWith(url: string, options?: IngestBatchOptions) {
  const { database, store } = await openMigratedStore(url);
  for (const id of ['acme', 'rival']) await createOrganization({ store, clock: systemClock }, { name: id, id });
  const commit = ingestBatchWriter(database, options);
  return {
    store,
    database,
    commit: (organizationId: string, messages: Record<string, unknown>[]) => commit(records(organizationId, messages), []),
    close: async () => {
      await commit.close();
      await database.close();
    },
  };
}

for (const target of storeTargets) {
  describe(`rollups in the ingest transaction on ${target.name}`, { skip: target.skip }, () => {
    test('a duplicate is not counted; a late message corrects its hour; first/last follow tsmTs, not arrival', async () => {
      const s = await storeWith(await target.createUrl());
      try {
        await s.commit('acme', [temp('T-1', t0 + 100, 20), temp('T-1', t0 + 200, 24), temp('T-1', t0 + 200, 24)]);
        await s.commit('acme', [temp('T-1', t0 + 100, 20)]);
        await s.commit('acme', [temp('T-1', t0 + 50, 10), temp('T-1', t0 + hour, 7)]);
        const hours = await s.store.rollups.hours({ tuid: 'T-1' }, range);
        assert.deepEqual(hours, [
          { hourStart: t0, count: 3, min: 10, max: 24, sum: 54, first: 10, firstTs: t0 + 50, last: 24, lastTs: t0 + 200 },
          { hourStart: t0 + hour, count: 1, min: 7, max: 7, sum: 7, first: 7, firstTs: t0 + hour, last: 7, lastTs: t0 + hour },
        ]);
        const group = await s.store.rollups.hours({ organizationId: 'acme', groupId: null }, range);
        assert.deepEqual(
          group.map((h) => h.count),
          [3, 1],
        );
        assert.deepEqual(await s.store.rollups.counts({ tuid: 'T-1' }, range, 0), { hours: 2, days: 1, rawPoints: 4 });
      } finally {
        await s.close();
      }
    });

    test('with rollups off (the benchmark switch) messages are stored and no rollup is written', async () => {
      const s = await storeWith(await target.createUrl(), { rollups: false });
      try {
        const result = await s.commit('acme', [temp('T-1', t0, 1)]);
        assert.equal(result.stored.length, 1);
        assert.deepEqual(await s.store.rollups.hours({ organizationId: 'acme', groupId: null }, range), []);
        // A thing's hours from its rollup watermark on are read from its raw messages, written or not.
        assert.equal((await s.store.rollups.hours({ tuid: 'T-1' }, range)).length, 1);
      } finally {
        await s.close();
      }
    });

    test('expire removes at most `limit` rows per call, only the organization’s, only before the hour given', async () => {
      const s = await storeWith(await target.createUrl());
      try {
        // T-1's rollups are stored up to t0 + 10h (as after a compaction): older messages are late, rolled up at ingest.
        await s.commit('acme', [temp('T-1', t0 + 10 * hour, 10)]);
        await s.database.db
          .updateTable('things')
          .set({ rollup_watermark: t0 + 10 * hour })
          .where('tuid', '=', 'T-1')
          .execute();
        await s.commit(
          'acme',
          [0, 1, 2, 3].map((h) => temp('T-1', t0 + h * hour, h)),
        );
        await s.commit('rival', [temp('R-1', t0, 1)]);
        // 3 thing rows and 3 group rows of acme lie before t0 + 3h.
        assert.equal(await s.store.rollups.expire('acme', t0 + 3 * hour, 4), 4);
        assert.equal(await s.store.rollups.expire('acme', t0 + 3 * hour, 4), 2);
        assert.equal(await s.store.rollups.expire('acme', t0 + 3 * hour, 4), 0);
        assert.deepEqual(
          (await s.store.rollups.hours({ tuid: 'T-1' }, range)).map((h) => h.hourStart),
          [t0 + 3 * hour, t0 + 10 * hour],
        );
        assert.equal((await s.store.rollups.hours({ organizationId: 'acme', groupId: null }, range)).length, 2);
        assert.equal((await s.store.rollups.hours({ tuid: 'R-1' }, range)).length, 1, "the rival's rows stay");
        assert.equal((await s.store.rollups.hours({ organizationId: 'rival', groupId: null }, range)).length, 1);
      } finally {
        await s.close();
      }
    });

    test("releasing a thing deletes its rollups with its messages; the group's stay", async () => {
      const s = await storeWith(await target.createUrl());
      try {
        await s.commit('acme', [temp('T-1', t0, 1)]);
        assert.equal(await s.store.things.release('acme', 'T-1'), true);
        assert.deepEqual(await s.store.rollups.hours({ tuid: 'T-1' }, range), []);
        assert.equal((await s.store.rollups.hours({ organizationId: 'acme', groupId: null }, range)).length, 1);
      } finally {
        await s.close();
      }
    });
  });
}
