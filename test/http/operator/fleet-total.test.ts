/**
 * The whole fleet's total of `GET /things` (SPEC section 16) is kept per organization by the store (migration 0034):
 * it must stay the real count whichever way things come and go: claimed by ingest (two gateways at once), by import,
 * by a single call, released; and another organization's things never count.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiClient, createMqttCredential, createOrganization } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { signInAs, dataOf, type SignedInUser } from '../../helpers/graphql-users.js';
import { closeMqttClients, connectMqtt } from '../../helpers/mqtt-clients.js';
import { RestClient } from '../../helpers/rest-client.js';
import { runThingdesk } from '../../helpers/run-cli.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const uplinks = (prefix: string, n: number, tsmTs: number) =>
  Array.from({ length: n }, (_, i) => ({ tsmId: 1110, tsmEv: 10, tsmTs, tsmTuid: `${prefix}-${i + 1}`, batl: 50 }));

for (const target of storeTargets) {
  describe(`the whole fleet's total on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let acme: RestClient;
    let rival: RestClient;
    let viewer: SignedInUser;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Rival', id: 'rival' });
      await createMqttCredential(deps, { organizationId: 'rival', kind: 'gateway', username: 'rival-gw', password: 'rival-gw-password' });
      const client = await createApiClient(deps, { organizationId: 'rival', name: 'rival' });
      acme = new RestClient(server);
      rival = new RestClient(server, { client_id: client.client.clientId, client_secret: client.clientSecret });
      viewer = await signInAs(server, 'Viewer');
    });
    after(() => server?.stop());

    /** Every TUID the organization's list holds, walked page by page (the real count the total must equal). */
    async function listedTuids(as: RestClient): Promise<string[]> {
      const tuids: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; text: string; body: { data: { things: { tuid: string }[]; next_cursor: string | null } } } =
          await as.get(`/things?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(page.status, 200, page.text);
        tuids.push(...page.body.data.things.map((thing) => thing.tuid));
        cursor = page.body.data.next_cursor;
      } while (cursor);
      return tuids;
    }

    async function assertTotal(as: RestClient, expected: number, when: string): Promise<void> {
      const tuids = await listedTuids(as);
      assert.equal(tuids.length, expected, `${when}: the list itself`);
      const first = await as.get('/things?limit=2&sort=last_seen:desc');
      assert.deepEqual([first.body.data.total, first.body.data.total_is_estimate], [expected, false], `${when}: REST total`);
    }

    test('ingest, import, a single call and release each move the total by what they did, per organization', async () => {
      await assertTotal(acme, 0, 'empty');

      // Two gateways at once, each batch claiming new things, and one thing named by both.
      await Promise.all([
        publishUplinks(
          server,
          [...uplinks('IN-A', 12, 1_790_000_000), { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'BOTH', batl: 5 }],
          'GW-1',
        ),
        publishUplinks(
          server,
          [...uplinks('IN-B', 9, 1_790_000_000), { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_001, tsmTuid: 'BOTH', batl: 6 }],
          'GW-2',
        ),
      ]);
      await assertTotal(acme, 22, 'after ingest');
      // Known things again: nothing new to count.
      await publishUplinks(server, uplinks('IN-A', 12, 1_790_000_100), 'GW-1');
      await assertTotal(acme, 22, 'after ingest of known things');

      const rivalGateway = await connectMqtt(server.mqttUrl, { username: 'rival-gw', password: 'rival-gw-password' });
      await rivalGateway.publishAsync('thingdesk/rival/up/GW-R', JSON.stringify(uplinks('RV', 3, 1_790_000_000)), { qos: 1 });
      await rivalGateway.endAsync();
      await assertTotal(rival, 3, "the rival's own");
      await assertTotal(acme, 22, "acme's unchanged by the rival's");

      const imported = await acme.request('POST', '/things/import', {
        rawBody: 'tuid,name\nIMP-1,One\nIMP-2,Two\nIMP-3,Three\nIN-A-1,Renamed\n',
        headers: { 'content-type': 'text/csv' },
      });
      assert.equal(imported.status, 200, imported.text);
      await assertTotal(acme, 25, 'after import (three new, one existing)');

      assert.equal((await acme.post('/things/SINGLE-1/installations', { installation_status: 'installed' })).status, 200);
      await assertTotal(acme, 26, 'after a single claim');

      const env = { DATABASE_URL: server.config.databaseUrl };
      for (const tuid of ['IN-B-3', 'IMP-2', 'SINGLE-1', 'BOTH']) {
        const released = await runThingdesk(['thing', 'release', '--org', 'acme', '--tuid', tuid], env);
        assert.equal(released.code, 0, released.stderr);
      }
      const notHeld = await runThingdesk(['thing', 'release', '--org', 'acme', '--tuid', 'RV-1'], env);
      assert.equal(notHeld.code, 1, 'the rival holds RV-1');
      await assertTotal(acme, 22, 'after four releases');
      await assertTotal(rival, 3, "the rival's after acme's releases");

      // Released things come back through ingest, counted again.
      await publishUplinks(server, uplinks('IN-B', 3, 1_790_000_200), 'GW-2');
      await assertTotal(acme, 23, 'after a released thing is heard again');

      const gql = dataOf(await viewer.client.request('{ things(first: 1) { total totalIsEstimate } }'));
      assert.deepEqual(gql.things, { total: 23, totalIsEstimate: false });
      // A filtered total is still counted from the things themselves.
      const filtered = await acme.get('/things?q=imp&limit=1');
      assert.equal(filtered.body.data.total, 2);
    });
  });
}
