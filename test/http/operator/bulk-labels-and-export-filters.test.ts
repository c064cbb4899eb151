/**
 * SPEC sections 12 and 16 as the studio's things list uses them: `set_labels` in POST /things/bulk (and GraphQL
 * bulkUpdateThings) through PATCH's rules, and GET /things/export filtered by the list's gateway, battery and
 * silence filters, on both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { dataOf, signInAs } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`bulk labels and the export's filters on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    const rest = () => new RestClient(server);
    const labelsOf = async (tuid: string) => (await rest().get(`/things/${tuid}`)).body.data.labels;

    // B-1 (batl 10) and B-2 (batl 80) through GW-A, B-3 through GW-B; B-4 claimed by a call, never heard.
    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      await publishUplinks(
        server,
        [
          { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'B-1', batl: 10 },
          { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'B-2', batl: 80 },
        ],
        'GW-A',
      );
      await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'B-3', batl: 50 }], 'GW-B');
      assert.equal((await rest().post('/things/B-4/installations', { installation_status: 'installed' })).status, 200);
    });
    after(() => server?.stop());

    test("set_labels replaces each thing's labels; an unknown TUID is not claimed; bad labels refuse the request", async () => {
      const response = await rest().post('/things/bulk', {
        action: 'set_labels',
        labels: { site: 'north', room: 'b-2' },
        tuids: ['B-1', 'B-2', 'NOBODY-1'],
      });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        response.body.data.results.map((r: { tuid: string; ok: boolean; code?: string }) => [r.tuid, r.ok, r.code]),
        [
          ['B-1', true, undefined],
          ['B-2', true, undefined],
          ['NOBODY-1', false, 'NOT_FOUND'],
        ],
      );
      assert.deepEqual(await labelsOf('B-1'), { room: 'b-2', site: 'north' });
      assert.equal((await rest().get('/things/NOBODY-1')).status, 404, 'set_labels claims nothing');
      const bad = await rest().post('/things/bulk', { action: 'set_labels', labels: { 'Bad Key': 'x' }, tuids: ['B-1'] });
      assert.equal(bad.status, 400, bad.text);
      assert.match(bad.body.errors[0].field, /^labels/);
      const missing = await rest().post('/things/bulk', { action: 'set_labels', tuids: ['B-1'] });
      assert.deepEqual(
        missing.body.errors.map((e: { field: string }) => e.field),
        ['labels'],
      );
      assert.deepEqual(await labelsOf('B-1'), { room: 'b-2', site: 'north' }, 'a refused request changes nothing');
      const manager = await signInAs(server, 'Manager');
      const gql = dataOf(
        await manager.client.request(
          'mutation { bulkUpdateThings(action: "set_labels", tuids: ["B-2"], labels: [{ key: "site", value: "south" }]) { tuid ok } }',
        ),
      );
      assert.deepEqual(gql.bulkUpdateThings, [{ tuid: 'B-2', ok: true }]);
      assert.deepEqual(await labelsOf('B-2'), { site: 'south' }, 'replaced whole, as PATCH');
    });

    test('GET /things/export takes gateway_tuid, battery_below and silent_for_s as GET /things does; GraphQL thingsExport agrees', async () => {
      const exported = async (query: string) => {
        const response = await rest().get(`/things/export?format=ndjson&${query}`);
        assert.equal(response.status, 200, response.text);
        return response.text
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { tuid: string }).tuid);
      };
      assert.deepEqual(await exported('gateway_tuid=GW-A'), ['B-1', 'B-2']);
      assert.deepEqual(await exported('battery_below=60'), ['B-1', 'B-3']);
      assert.deepEqual(await exported('gateway_tuid=GW-A&battery_below=60'), ['B-1']);
      assert.deepEqual(await exported('silent_for_s=86400'), ['B-4']);
      const csv = await rest().get('/things/export?format=csv&gateway_tuid=GW-B');
      assert.deepEqual(csv.text.trim().split('\r\n').slice(1), ['B-3,,unassigned,new,,'], 'the label columns (room, site) empty');
      const bad = await rest().get('/things/export?battery_below=0');
      assert.equal(bad.status, 400);
      // GraphQL thingsExport (the studio's button) answers the same file whole.
      const viewer = await signInAs(server, 'Viewer');
      const whole = dataOf(await viewer.client.request('{ thingsExport(format: CSV, filter: { gatewayTuid: "GW-B" }) }')).thingsExport;
      assert.equal(whole, csv.text);
    });
  });
}
