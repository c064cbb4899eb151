/**
 * SPEC section 16: the things list by last seen pages through heard things (ties by TUID) and then the never-heard
 * ones, in either direction, with pages that end inside a tie and across the boundary; the gateways list pages by
 * TUID with and without a search. Both are read in two steps since migration 0033 (things-store.ts
 * `listByLastSeen`, gateways-store.ts), on both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import type { TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { start, startFleet, thingTuids } from './fleet-at-scale-helpers.js';

after(cleanupStores);
after(closeMqttClients);

/** Every page of `path` (a list answering `next_cursor`) of `limit`, concatenated by `key`. */
async function walk(server: TestApp, path: string, list: 'things' | 'gateways', key: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page: { status: number; text: string; body: { data: Record<string, unknown> } } = await new RestClient(server).get(
      `${path}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    assert.equal(page.status, 200, page.text);
    const items = page.body.data[list] as Record<string, string>[];
    assert.ok(items.length <= limit);
    seen.push(...items.map((item) => item[key]!));
    cursor = page.body.data.next_cursor as string | null;
  } while (cursor !== null);
  return seen;
}

for (const target of storeTargets) {
  describe(`the things list by last seen, paged, on ${target.name}`, { skip: target.skip }, () => {
    const clock = new ManualClock(start);
    let server: TestApp;

    before(async () => {
      ({ server } = await startFleet(target, clock));
      // A second never-heard thing, so the never-heard part has an order of its own (by TUID).
      const claimed = await new RestClient(server).post('/things/NEVER-2/installations', { installation_status: 'installed' });
      assert.equal(claimed.status, 200, claimed.text);
    });
    after(() => server?.stop());

    test('pages of 1, 2 and 3 in either direction give the one-page order: heard (ties by TUID), then never heard', async () => {
      // T-1 and T-2 were heard in one batch at the same instant: a tie, broken by TUID in the sort's direction.
      const expected = {
        desc: ['T-3', 'T-2', 'T-1', 'NEVER-2', 'NEVER-1'],
        asc: ['T-1', 'T-2', 'T-3', 'NEVER-1', 'NEVER-2'],
      };
      for (const direction of ['desc', 'asc'] as const) {
        assert.deepEqual(await thingTuids(server, `?sort=last_seen:${direction}`), expected[direction], direction);
        for (const limit of [1, 2, 3]) {
          assert.deepEqual(
            await walk(server, `/things?sort=last_seen:${direction}`, 'things', 'tuid', limit),
            expected[direction],
            `${direction}, ${limit}`,
          );
        }
      }
      // Narrowed lists sort their matches (another read): the same order rules.
      assert.deepEqual(await walk(server, '/things?sort=last_seen:desc&installation_status=installed', 'things', 'tuid', 1), [
        'NEVER-2',
        'NEVER-1',
      ]);
      assert.deepEqual(await walk(server, '/things?sort=last_seen:asc&gateway_tuid=GW-1', 'things', 'tuid', 1), ['T-1', 'T-2']);
    });

    test('gateways page by TUID, with a search and without', async () => {
      assert.deepEqual(await walk(server, '/gateways', 'gateways', 'gateway_tuid', 1), ['GW-1', 'GW-2']);
      assert.deepEqual(await walk(server, '/gateways?q=gw', 'gateways', 'gateway_tuid', 1), ['GW-1', 'GW-2']);
      assert.deepEqual(await walk(server, '/gateways?q=2', 'gateways', 'gateway_tuid', 1), ['GW-2']);
      const counts = (await new RestClient(server).get('/gateways')).body.data.gateways.map((g: { thing_count: number }) => g.thing_count);
      assert.deepEqual(counts, [2, 1], 'each gateway folds its own things only');
    });
  });
}
