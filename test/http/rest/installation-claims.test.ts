/**
 * POST /things/{tuid}/installations (SPEC section 3) on a thing nobody owns claims it; another organization's thing is
 * neither claimed nor changed, also in a race; and the seed 000 installation flow.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { client, installationCalls, installationTestServer } from './installation-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`installation status over REST on ${target.name}`, { skip: target.skip }, () => {
    const context = installationTestServer(target);
    const { setStatus, history, thingIn } = installationCalls(context);

    test('POST claims a thing nobody owns: its history is `new`, then the new status, both by the caller', async () => {
      context.clock.advance(1_000);
      const response = await setStatus('CLAIM-1', 'quarantine');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.data, {
        tuid: 'CLAIM-1',
        installation_status: 'quarantine',
        group_id: 'unassigned',
        timestamp: Math.floor(context.clock.now() / 1000),
        responsible: client,
      });
      const entries = (await history('CLAIM-1')).body.data;
      assert.deepEqual(
        entries.map((e: { installation_status: string; responsible: string }) => [e.installation_status, e.responsible]),
        [
          ['quarantine', client],
          ['new', client],
        ],
      );
      const summary = await context.rest.get('/things/CLAIM-1');
      assert.equal(summary.status, 200);
      assert.equal(summary.body.data.installation_status, 'quarantine');
    });

    test('POST `new` on a thing nobody owns claims it with a history of one entry', async () => {
      assert.equal((await setStatus('CLAIM-NEW', 'new')).status, 200);
      assert.deepEqual(
        (await history('CLAIM-NEW')).body.data.map((e: { installation_status: string }) => e.installation_status),
        ['new'],
      );
    });

    test('a disallowed move on a thing nobody owns is 409 and creates nothing', async () => {
      const response = await setStatus('NOT-CREATED', 'uninstalled');
      assert.equal(response.status, 409, response.text);
      assert.deepEqual(response.body.allowed, ['installed', 'quarantine', 'retired']);
      assert.equal((await context.rest.get('/things/NOT-CREATED')).status, 404);
      assert.equal((await history('NOT-CREATED')).status, 404);
      assert.equal(await context.server.app.store.things.get('NOT-CREATED'), undefined);
    });

    test("another organization's thing answers exactly like an unknown one, and is neither claimed nor changed", async () => {
      const tuid = await thingIn('installed', 'OWNED-1');
      const before = (await history(tuid)).body.data;
      const unknownRead = await history('OWNED-2', '', context.rival);
      const foreignRead = await history(tuid, '', context.rival);
      assert.equal(foreignRead.status, 404);
      assert.deepEqual(foreignRead.body, { ...unknownRead.body, message: unknownRead.body.message.replace('OWNED-2', tuid) });
      for (const status of ['installed', 'uninstalled', 'retired', 'new']) {
        const write = await setStatus(tuid, status, context.rival);
        assert.equal(write.status, 404, write.text);
        assert.deepEqual(write.body, foreignRead.body);
      }
      assert.deepEqual((await history(tuid)).body.data, before);
      assert.equal((await context.server.app.store.things.get(tuid))?.organizationId, 'acme');
    });

    test('concurrent claims by two organizations: one owns the thing, with one `new` entry; the other gets 404', async () => {
      const tuid = 'RACE-1';
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => setStatus(tuid, 'installed', i % 2 === 0 ? context.rest : context.rival)),
      );
      const owner = (await context.server.app.store.things.get(tuid))!.organizationId;
      const ownerClient = owner === 'acme' ? context.rest : context.rival;
      results.forEach((r, i) => assert.equal(r.status, (i % 2 === 0) === (owner === 'acme') ? 200 : 404, r.text));
      assert.deepEqual(
        (await history(tuid, '', ownerClient)).body.data.map((e: { installation_status: string }) => e.installation_status),
        ['installed', 'new'],
      );
    });

    test('seed 000 installation flow: TUID from IMC + PSN, then installation, then group; both 200; the summary shows both', async () => {
      const imc = 'IMC0042';
      const psn = 'PSN123456';
      const tuid = imc + psn;
      assert.equal(tuid, 'IMC0042PSN123456');
      assert.equal((await context.rest.post('/groups', { group_id: 'flow-north', group_description: 'North site' })).status, 200);
      const installed = await setStatus(tuid, 'installed');
      assert.equal(installed.status, 200, installed.text);
      const grouped = await context.rest.post(`/things/${tuid}/group`, { group_id: 'flow-north' });
      assert.equal(grouped.status, 200, grouped.text);
      assert.deepEqual(grouped.body, { data: { tuid, group_id: 'flow-north', installation_status: 'installed' } });
      const summary = await context.rest.get(`/things/${tuid}`);
      assert.equal(summary.status, 200);
      assert.equal(summary.body.data.installation_status, 'installed');
      assert.equal(summary.body.data.group_id, 'flow-north');
    });
  });
}
