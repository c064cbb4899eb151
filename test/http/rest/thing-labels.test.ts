/**
 * Names and labels of things (SPEC section 12) through the real server on both stores: the summary's `name` and
 * `labels`, PATCH /things/{tuid} (each rule violated and kept), the label filter of GET /things and GraphQL's
 * Thing.name/labels, updateThing and things(labels:), and the `thingChanged` event.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import type { DomainEvents } from '../../../src/domain/events.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { assertBadInput, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`thing names and labels on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let rival: RestClient;
    const changed: DomainEvents['thingChanged'][] = [];
    const patch = (tuid: string, body: unknown, as?: RestClient) => (as ?? rest).request('PATCH', `/things/${tuid}`, { body });

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      rest = new RestClient(server);
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Rival', id: 'rival' });
      const created = await createApiClient(deps, { organizationId: 'rival', name: 'rival', clientId: 'rival-client' });
      rival = new RestClient(server, { client_id: created.client.clientId, client_secret: created.clientSecret });
      for (const tuid of ['L-1', 'L-2', 'L-3'])
        assert.equal((await rest.post(`/things/${tuid}/installations`, { installation_status: 'new' })).status, 200);
      assert.equal((await rival.post('/things/R-1/installations', { installation_status: 'new' })).status, 200);
      server.app.events.on('thingChanged', (event) => void changed.push(event));
    });
    after(() => server?.stop());

    test('a thing has name null and labels {} until set; PATCH sets both, replaces labels whole, name null clears', async () => {
      const fresh = await rest.get('/things/L-1');
      assert.equal(fresh.body.data.name, null);
      assert.deepEqual(fresh.body.data.labels, {});
      const set = await patch('L-1', { name: 'Pump 4', labels: { site: 'north', room: 'b-204' } });
      assert.equal(set.status, 200, set.text);
      assert.equal(set.body.data.name, 'Pump 4');
      assert.deepEqual(set.body.data.labels, { room: 'b-204', site: 'north' });
      assert.deepEqual((await rest.get('/things/L-1')).body.data.labels, { room: 'b-204', site: 'north' });
      const replaced = await patch('L-1', { labels: { site: 'south' } });
      assert.deepEqual(replaced.body.data.labels, { site: 'south' }, 'labels are replaced whole');
      assert.equal(replaced.body.data.name, 'Pump 4', 'a name left out stays');
      const cleared = await patch('L-1', { name: null });
      assert.equal(cleared.body.data.name, null);
      assert.deepEqual(cleared.body.data.labels, { site: 'south' });
      const event = changed.find((e) => e.tuid === 'L-1' && e.changes.name?.to === 'Pump 4');
      assert.deepEqual(event?.changes, { name: { from: null, to: 'Pump 4' }, labels: { from: {}, to: { room: 'b-204', site: 'north' } } });
      assert.equal(event?.responsible, 'acme-client');
    });

    test('PATCH refuses each broken rule by field, and changes nothing', async () => {
      const fiftyOne = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
      const cases: [string, unknown, string][] = [
        ['name of 201 characters', { name: 'x'.repeat(201) }, 'name'],
        ['empty name', { name: '' }, 'name'],
        ['51 labels', { labels: fiftyOne }, 'labels'],
        ['upper-case key', { labels: { Site: 'x' } }, 'labels'],
        ['key of 64 characters', { labels: { ['k'.repeat(64)]: 'x' } }, 'labels'],
        ['value of 201 characters', { labels: { site: 'v'.repeat(201) } }, 'labels.site'],
        ['value not a string', { labels: { site: 3 } }, 'labels.site'],
      ];
      for (const [what, body, field] of cases) {
        const refused = await patch('L-2', body);
        assert.equal(refused.status, 400, `${what}: ${refused.text}`);
        assert.equal(refused.body.code, 'VALIDATION_FAILED', what);
        assert.ok(
          refused.body.errors.some((e: { field: string }) => e.field === field),
          `${what} names ${field}: ${refused.text}`,
        );
      }
      const kept = await patch('L-2', {
        name: 'n'.repeat(200),
        labels: { ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'.repeat(200)])) },
      });
      assert.equal(kept.status, 200, `the limits themselves are allowed: ${kept.text}`);
      assert.equal(Object.keys(kept.body.data.labels).length, 50);
      assert.equal((await patch('L-2', { labels: { 'a.b_c-9': '' } })).status, 200, 'every allowed key character');
    });

    test("PATCH claims nothing: an unknown TUID and another organization's are 404 and stay as they were", async () => {
      assert.equal((await patch('NOBODY-1', { name: 'x' })).status, 404);
      assert.equal((await rest.get('/things/NOBODY-1')).status, 404, 'not claimed');
      assert.equal((await patch('R-1', { name: 'stolen' })).status, 404);
      assert.equal((await rival.get('/things/R-1')).body.data.name, null);
    });

    test('GET /things?label=k:v filters by label; repeated, all must match; a bad filter is 400', async () => {
      await patch('L-1', { labels: { site: 'east', room: '1' } });
      await patch('L-2', { labels: { site: 'east', room: '2' } });
      await patch('L-3', { labels: { site: 'west', room: '1' } });
      await patch('R-1', { labels: { site: 'east' } }, rival);
      const tuids = async (query: string) =>
        ((await rest.get(`/things?${query}`)).body.data.things as { tuid: string }[]).map((t) => t.tuid);
      assert.deepEqual(await tuids('label=site:east'), ['L-1', 'L-2']);
      assert.deepEqual(await tuids('label=site:east&label=room:1'), ['L-1']);
      assert.deepEqual(await tuids('label=room:1'), ['L-1', 'L-3']);
      assert.deepEqual(await tuids('label=site:nowhere'), []);
      assert.deepEqual(await tuids('label=site:east&limit=1').then(() => tuids('label=site:east&limit=1')), ['L-1']);
      const bad = await rest.get('/things?label=no-colon');
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.errors[0].field, 'label');
      assert.equal((await rest.get('/things?label=BAD:x')).status, 400);
    });

    test('GraphQL: Thing.name and labels, updateThing for an Installer, things(labels:), not for a Viewer', async () => {
      const installer = await signInAs(server, 'Installer');
      const updated = await installer.client.request(
        'mutation($labels: [LabelInput!]) { updateThing(tuid: "L-3", name: "Valve", labels: $labels) { tuid name labels { key value } } }',
        {
          labels: [
            { key: 'site', value: 'west' },
            { key: 'floor', value: '2' },
          ],
        },
      );
      assert.deepEqual(dataOf(updated).updateThing, {
        tuid: 'L-3',
        name: 'Valve',
        labels: [
          { key: 'floor', value: '2' },
          { key: 'site', value: 'west' },
        ],
      });
      const listed = await installer.client.request(
        '{ things(labels: [{key: "site", value: "west"}, {key: "floor", value: "2"}]) { nodes { tuid name } } }',
      );
      assert.deepEqual(dataOf(listed).things.nodes, [{ tuid: 'L-3', name: 'Valve' }]);
      assertBadInput(await installer.client.request('mutation { updateThing(tuid: "L-3", name: "") { tuid } }'), ['name']);
      const viewer = await signInAs(server, 'Viewer');
      const refused = await viewer.client.request('mutation { updateThing(tuid: "L-3", name: "x") { tuid } }');
      assert.match(JSON.stringify(refused.body.errors), /updateThing/);
      assert.equal((await rest.get('/things/L-3')).body.data.name, 'Valve');
    });
  });
}
