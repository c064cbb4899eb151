import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../src/store/store.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import type { GraphqlClient } from '../helpers/graphql-client.js';
import { signInAs } from '../helpers/graphql-users.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const day = 1_790_035_200;

/**
 * The seam: the real store's series and fleet reads wait while `held` is set, as a long read would, so that requests
 * stay in flight for as long as the test needs. `waiting` counts the reads waiting now.
 */
function holdHeavyReads(store: Store) {
  const hold = { held: false, waiting: 0, release: () => {} };
  let released = Promise.resolve();
  hold.release = () => {};
  const parts = [store.rollups, store.fleetHealth] as unknown as Record<string, unknown>[];
  for (const part of parts) {
    for (const [name, method] of Object.entries(part)) {
      if (typeof method !== 'function') continue;
      part[name] = async (...args: unknown[]) => {
        if (hold.held) {
          hold.waiting += 1;
          await released;
          hold.waiting -= 1;
        }
        return (method as (...a: unknown[]) => unknown).apply(part, args);
      };
    }
  }
  return {
    hold: () => {
      hold.held = true;
      released = new Promise((resolve) => (hold.release = resolve));
    },
    release: () => {
      hold.held = false;
      hold.release();
    },
    waiting: () => hold.waiting,
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const seriesArgs = `tsmId: 12100, field: "temp", from: ${day}, to: ${day + 7200}`;
const seriesPath = `/things/S-1/series?tsmId=12100&field=temp&from=${day}&to=${day + 7200}`;

for (const target of storeTargets) {
  describe(`Heavy reads per caller on ${target.name} (HEAVY_REQUESTS_PER_CALLER 2)`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let viewer: GraphqlClient;
    let manager: GraphqlClient;
    let reads: ReturnType<typeof holdHeavyReads>;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl(), HEAVY_REQUESTS_PER_CALLER: '2' });
      rest = new RestClient(server);
      viewer = (await signInAs(server, 'Viewer')).client;
      manager = (await signInAs(server, 'Manager')).client;
      await publishUplinks(server, [{ tsmId: 12100, tsmEv: 10, tsmTs: day + 10, tsmTuid: 'S-1', temp: 20 }]);
      await rest.accessToken();
      reads = holdHeavyReads(server.app.store);
    });
    // A failed assertion must not leave requests held: the server's stop would wait for them.
    afterEach(() => reads?.release());
    after(() => server?.stop());

    test(
      'REST: a third heavy request of one API client is refused with 429 and Retry-After; the slots come back',
      { timeout: 30_000 },
      async () => {
        reads.hold();
        const held = [rest.get(seriesPath), rest.get(`/groups/unassigned/series?tsmId=12100&field=temp&from=${day}&to=${day + 7200}`)];
        await until(() => reads.waiting() === 2, 'two series reads in flight');
        for (const path of ['/fleet/health', seriesPath, '/things/S-1/messages/export']) {
          const refused = await rest.get(path);
          assert.equal(refused.status, 429, `${path}: ${refused.text}`);
          assert.equal(refused.body.code, 'RATE_LIMITED');
          assert.match(refused.body.message, /HEAVY_REQUESTS_PER_CALLER/);
          assert.equal(refused.headers.get('retry-after'), '1');
        }
        // Another caller is not held up by this one's slots: its read reaches the store.
        const other = viewer.request(`{ series(tuid: "S-1", ${seriesArgs}) { bucket } }`);
        await until(() => reads.waiting() === 3, "another caller's read in flight");
        reads.release();
        assert.equal((await other).body.errors, undefined);
        for (const response of await Promise.all(held)) assert.equal(response.status, 200, response.text);
        assert.equal((await rest.get('/fleet/health')).status, 200);
        const exported = await rest.get('/things/S-1/messages/export');
        assert.equal(exported.status, 200, exported.text);
      },
    );

    test(
      "GraphQL: a request's aliases share one slot; a user's third heavy request is refused with RATE_LIMITED",
      { timeout: 30_000 },
      async () => {
        reads.hold();
        const threeAliases = `{ a: series(tuid: "S-1", ${seriesArgs}) { bucket } b: series(tuid: "S-1", ${seriesArgs}) { bucket } c: groupSeries(groupId: "unassigned", ${seriesArgs}) { bucket } }`;
        const held = [manager.request(threeAliases), manager.request(`{ fleetHealth { windowDays } }`)];
        await until(() => reads.waiting() === 4, 'four heavy reads in flight');
        const refused = await manager.request(`{ series(tuid: "S-1", ${seriesArgs}) { bucket } }`);
        assert.equal(refused.body.errors?.[0]?.extensions?.code, 'RATE_LIMITED', JSON.stringify(refused.body));
        assert.match(refused.body.errors![0]!.message, /HEAVY_REQUESTS_PER_CALLER/);
        reads.release();
        for (const response of await Promise.all(held)) assert.equal(response.body.errors, undefined, JSON.stringify(response.body));
        const again = await manager.request(`{ series(tuid: "S-1", ${seriesArgs}) { bucket } }`);
        assert.equal(again.body.errors, undefined, JSON.stringify(again.body));
      },
    );
  });
}
