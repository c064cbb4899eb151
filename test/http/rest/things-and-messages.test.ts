import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks, summaryUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const t0 = 1_790_000_000;

for (const target of storeTargets) {
  describe(`things and messages over REST on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let rival: RestClient;
    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      rest = new RestClient(server);
      await publishUplinks(server, summaryUplinks(t0));
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Rival', id: 'rival' });
      const client = await createApiClient(deps, { organizationId: 'rival', name: 'rival' });
      rival = new RestClient(server, { client_id: client.client.clientId, client_secret: client.clientSecret });
    });
    after(() => server?.stop());

    test('GET /things/{tuid}: the summary with integer battery, version, location, gateway and newest timestamp', async () => {
      const response = await rest.get('/things/T-1');
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, {
        data: {
          tuid: 'T-1',
          battery_level: 80,
          timestamp: t0 + 40,
          location: { lat: 60.1699, lon: 24.9384 },
          gateway_tuid: 'GW-1',
          version: '1.4.2',
          installation_status: 'new',
          group_id: 'unassigned',
          name: null,
          labels: {},
        },
      });
      assert.match(response.text, /"battery_level":80,/, 'an integer in the JSON text');
    });

    test('a thing with no 1100 yet has version "unknown" and null for what it never sent', async () => {
      const { body } = await rest.get('/things/T-2');
      assert.deepEqual(body.data, {
        tuid: 'T-2',
        battery_level: null,
        timestamp: t0 + 5,
        location: null,
        gateway_tuid: 'GW-1',
        version: 'unknown',
        installation_status: 'new',
        group_id: 'unassigned',
        name: null,
        labels: {},
      });
    });

    test('unknown thing 404; TUID outside the rule 400 naming tuid', async () => {
      const unknown = await rest.get('/things/NOPE');
      assert.deepEqual(unknown.body, { statusCode: 404, error: 'Not Found', message: 'No thing NOPE.', code: 'NOT_FOUND' });
      const bad = await rest.get(`/things/${encodeURIComponent('bad tuid')}`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].field, 'tuid');
      assert.equal((await rest.get(`/things/${'a'.repeat(65)}`)).status, 400);
      assert.equal((await rest.get(`/things/${'a'.repeat(64)}`)).status, 404);
    });

    test('messages: newest first, each as received plus deploymentGroupId; limit cuts', async () => {
      const all = await rest.get('/things/T-1/messages?limit=100');
      assert.equal(all.status, 200);
      assert.deepEqual(
        all.body.data.map((m: { tsmTs: number }) => m.tsmTs),
        [t0 + 40, t0 + 30, t0 + 20, t0 + 10, t0],
      );
      assert.deepEqual(all.body.data[1], {
        tsmId: 12100,
        tsmEv: 10,
        tsmTs: t0 + 30,
        tsmTuid: 'T-1',
        tsmGw: 'GW-1',
        temp: 21.5,
        deploymentGroupId: 'unassigned',
      });
      const two = await rest.get('/things/T-1/messages?limit=2');
      assert.equal(two.body.data.length, 2);
    });

    test('messages: messageid and eventid filters (comma-separated), from and to inclusive', async () => {
      const ids = await rest.get('/things/T-1/messages?limit=10&messageid=1110,1100');
      assert.deepEqual(
        ids.body.data.map((m: { tsmId: number }) => m.tsmId),
        [1110, 1110, 1100],
      );
      const events = await rest.get('/things/T-1/messages?limit=10&eventid=101');
      assert.deepEqual(
        events.body.data.map((m: { tsmEv: number }) => m.tsmEv),
        [101],
      );
      const window = await rest.get(`/things/T-1/messages?limit=10&from=${t0 + 10}&to=${t0 + 30}`);
      assert.deepEqual(
        window.body.data.map((m: { tsmTs: number }) => m.tsmTs),
        [t0 + 30, t0 + 20, t0 + 10],
      );
      const both = await rest.get(`/things/T-1/messages?limit=10&messageid=1110&eventid=10&from=${t0}&to=${t0 + 10}`);
      assert.deepEqual(
        both.body.data.map((m: { tsmTs: number }) => m.tsmTs),
        [t0 + 10],
      );
    });

    test('messages: limit is required and 1..10000; bad lists and from > to are 400 naming the field', async () => {
      const cases: [string, string][] = [
        ['', 'limit'],
        ['limit=0', 'limit'],
        ['limit=10001', 'limit'],
        ['limit=abc', 'limit'],
        ['limit=2.5', 'limit'],
        ['limit=5&messageid=11x0', 'messageid'],
        ['limit=5&eventid=,', 'eventid'],
        ['limit=5&from=-1', 'from'],
        ['limit=5&to=soon', 'to'],
        [`limit=5&from=${t0 + 1}&to=${t0}`, 'from'],
      ];
      for (const [query, field] of cases) {
        const response = await rest.get(`/things/T-1/messages?${query}`);
        assert.equal(response.status, 400, query);
        assert.equal(response.body.code, 'VALIDATION_FAILED', query);
        assert.ok(
          response.body.errors.some((e: { field: string }) => e.field === field),
          `${query}: ${response.text}`,
        );
      }
      assert.equal((await rest.get('/things/T-1/messages?limit=1')).status, 200);
      assert.equal((await rest.get('/things/T-1/messages?limit=10000')).status, 200);
      assert.equal((await rest.get('/things/NOPE/messages?limit=1')).status, 404);
    });

    test('GET /things lists by TUID with filters and cursor paging', async () => {
      const first = await rest.get('/things?limit=2');
      assert.deepEqual(
        first.body.data.things.map((t: { tuid: string }) => t.tuid),
        ['T-1', 'T-2'],
      );
      assert.equal(typeof first.body.data.next_cursor, 'string');
      const second = await rest.get(`/things?limit=2&cursor=${first.body.data.next_cursor}`);
      assert.deepEqual(
        second.body.data.things.map((t: { tuid: string }) => t.tuid),
        ['X-3'],
      );
      assert.equal(second.body.data.next_cursor, null);
      assert.deepEqual(
        (await rest.get('/things?q=t-')).body.data.things.map((t: { tuid: string }) => t.tuid),
        ['T-1', 'T-2'],
      );
      assert.equal((await rest.get('/things?installation_status=new')).body.data.things.length, 3);
      assert.equal((await rest.get('/things?installation_status=installed')).body.data.things.length, 0);
      assert.equal((await rest.get('/things?group_id=unassigned')).body.data.things.length, 3);
      assert.equal((await rest.get('/things?group_id=north')).body.data.things.length, 0);
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['cursor=xyz', 'cursor'],
        ['installation_status=broken', 'installation_status'],
        ['group_id=a%2Fb', 'group_id'],
        ['group_id=UNASSIGNED', 'group_id'],
      ]) {
        const response = await rest.get(`/things?${query}`);
        assert.equal(response.status, 400, query);
        assert.equal(response.body.errors[0].field, field, query);
      }
    });

    test("another organization's thing answers exactly like an unknown one", async () => {
      for (const path of ['/things/T-1', '/things/T-1/messages?limit=5', '/things/T-1/alerts']) {
        const foreign = await rival.get(path);
        const unknown = await rival.get(path.replace('T-1', 'NOPE'));
        assert.equal(foreign.status, 404, path);
        assert.deepEqual({ ...foreign.body, message: '' }, { ...unknown.body, message: '' }, path);
        assert.equal(foreign.body.message, 'No thing T-1.');
      }
      assert.deepEqual((await rival.get('/things')).body.data.things, []);
    });
  });
}
