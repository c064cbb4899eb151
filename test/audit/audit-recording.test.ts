/** SPEC 14: what each kind of change records (actor, via, action, target, changes, outcome), on both stores. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { audited } from '../../src/domain/audit/audit-recorder.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { signInAs, type SignedInUser } from '../helpers/graphql-users.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';
import { entriesAddedBy, entriesOf, only } from './audit-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const interval = { tsmId: 1500, tsmEv: 30, transactionId: 77, measurementInterval: 60, reportInterval: 300 };

for (const target of storeTargets) {
  describe(`the audit log records every kind of change on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let manager: SignedInUser;
    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      rest = new RestClient(server);
      manager = await signInAs(server, 'Manager');
    });
    after(() => server?.stop());

    test('REST: groups, group assignment, installation status and commands, as the API client via rest', async () => {
      const added = await entriesAddedBy(server, async () => {
        assert.equal((await rest.post('/groups', { group_id: 'north', group_description: 'North' })).status, 200);
        assert.equal((await rest.post('/groups/north/rename', { group_id: 'east' })).status, 200);
        assert.equal((await rest.post('/things/T-1/installations', { installation_status: 'installed' })).status, 200);
        assert.equal((await rest.post('/things/T-1/group', { group_id: 'east' })).status, 200);
        const sent = await rest.post('/things/T-1/commands', [interval]);
        assert.equal(sent.status, 200, sent.text);
        assert.equal((await rest.delete('/groups/east')).status, 200);
      });
      for (const entry of added.filter((e) => e.action !== 'auth.login')) {
        assert.deepEqual(entry.actor, { type: 'api_client', id: 'acme-client', label: 'acme-client' });
        assert.equal(entry.via, 'rest');
        assert.equal(entry.outcome, 'success');
        assert.ok(entry.requestId && entry.address, 'request id and address');
      }
      assert.deepEqual(only(added, 'group.create').changes, {
        groupId: { from: null, to: 'north' },
        description: { from: null, to: 'North' },
      });
      const renamed = only(added, 'group.rename');
      assert.deepEqual([renamed.target, renamed.changes], [{ type: 'group', id: 'north' }, { groupId: { from: 'north', to: 'east' } }]);
      const status = only(added, 'thing.set_installation_status');
      assert.deepEqual([status.target, status.changes], [{ type: 'thing', id: 'T-1' }, { status: { from: null, to: 'installed' } }]);
      assert.deepEqual(only(added, 'thing.assign_group').changes, { groupId: { from: null, to: 'east' } });
      assert.deepEqual(only(added, 'thing.send_commands').changes, { tsmIds: { from: null, to: '1500' }, count: { from: null, to: 1 } });
      assert.deepEqual(only(added, 'group.delete').changes, {
        groupId: { from: 'east', to: null },
        description: { from: 'North', to: null },
      });
    });

    test('GraphQL: users, roles (sessions ended), API clients, MQTT credentials, retention, as the Manager via graphql', async () => {
      const installer = await signInAs(server, 'Installer');
      const added = await entriesAddedBy(server, async () => {
        const ops = [
          `mutation { createUser(email: "new@acme.test", password: "new-user-password-1", role: VIEWER) { id } }`,
          `mutation { setUserRole(userId: "${installer.userId}", role: VIEWER) { id } }`,
          `mutation { createApiClient(name: "ci") { clientId } }`,
          `mutation { createMqttCredential(kind: GATEWAY, username: "gw-audit") { username } }`,
          `mutation { revokeMqttCredential(username: "gw-audit") }`,
          `mutation { setRetention(messageRetentionDays: 30) { messageRetentionDays } }`,
        ];
        for (const query of ops) {
          const response = await manager.client.request(query);
          assert.equal(response.body.errors, undefined, `${query}: ${JSON.stringify(response.body.errors)}`);
        }
      });
      for (const entry of added) {
        assert.deepEqual(entry.actor, { type: 'user', id: manager.userId, label: manager.email });
        assert.equal(entry.via, 'graphql');
        assert.equal(entry.outcome, 'success');
      }
      const created = only(added, 'user.create');
      assert.deepEqual(created.changes, { email: { from: null, to: 'new@acme.test' }, role: { from: null, to: 'Viewer' } });
      const role = only(added, 'user.set_role');
      assert.deepEqual(
        [role.target, role.changes],
        [{ type: 'user', id: installer.userId }, { role: { from: 'Installer', to: 'Viewer' } }],
      );
      const ended = only(added, 'session.end');
      assert.deepEqual(ended.changes?.['reason'], { from: null, to: 'role changed' });
      assert.equal(only(added, 'api_client.create').target.type, 'api_client');
      assert.deepEqual(only(added, 'mqtt_credential.create').changes, {
        username: { from: null, to: 'gw-audit' },
        kind: { from: null, to: 'gateway' },
      });
      assert.deepEqual(only(added, 'mqtt_credential.revoke').changes, { revoked: { from: false, to: true } });
      assert.deepEqual(only(added, 'organization.set_retention').changes, { messageRetentionDays: { from: null, to: 30 } });
    });

    test('sign-ins: success, failure (with the e-mail tried, into the named organization), logout', async () => {
      const client = new GraphqlClient(server);
      const added = await entriesAddedBy(server, async () => {
        await client.login({ password: 'wrong-password-1' });
        await client.login({ email: 'nobody@acme.test', password: 'wrong-password-1' });
        await client.login();
        assert.equal((await client.request('mutation { logout { success } }')).body.errors, undefined);
      });
      const failed = added.filter((entry) => entry.action === 'auth.login_failed');
      assert.deepEqual(
        failed.map((entry) => [entry.actor.label, entry.outcome, entry.via]),
        [
          [testBootstrap.BOOTSTRAP_EMAIL, 'denied', 'graphql'],
          ['nobody@acme.test', 'denied', 'graphql'],
        ],
      );
      const login = only(added, 'auth.login');
      assert.deepEqual([login.actor.label, login.outcome, login.address], [testBootstrap.BOOTSTRAP_EMAIL, 'success', '127.0.0.1']);
      const logout = only(added, 'auth.logout');
      assert.equal(logout.actor.label, testBootstrap.BOOTSTRAP_EMAIL);
    });

    test("refused for lack of permission: a Viewer's mutation and an Installer's command are recorded as denied", async () => {
      const viewer = await signInAs(server, 'Viewer');
      const installer = await signInAs(server, 'Installer');
      const added = await entriesAddedBy(server, async () => {
        const refused = await viewer.client.request('mutation { createGroup(groupId: "viewers") { groupId } }');
        assert.ok(refused.body.errors, 'refused');
        const command = await installer.client.request('mutation($c: [JSON!]!) { sendCommands(tuid: "T-1", commands: $c) { timestamp } }', {
          c: [interval],
        });
        assert.ok(command.body.errors, 'refused');
      });
      const group = only(added, 'graphql.createGroup');
      assert.deepEqual([group.outcome, group.actor.id, group.target], ['denied', viewer.userId, { type: 'group', id: 'viewers' }]);
      const command = only(added, 'graphql.sendCommands');
      assert.deepEqual([command.outcome, command.actor.id, command.target], ['denied', installer.userId, { type: 'thing', id: 'T-1' }]);
      assert.equal(added.filter((entry) => entry.outcome === 'success').length, 0);
    });

    test('a change refused as invalid (400, 404, 409) records no success entry', async () => {
      assert.equal((await rest.post('/groups', { group_id: 'dup' })).status, 200);
      const added = await entriesAddedBy(server, async () => {
        assert.equal((await rest.post('/groups', { group_id: 'dup' })).status, 409);
        assert.equal((await rest.post('/groups', { group_id: 'bad id' })).status, 400);
        assert.equal((await rest.post('/things/T-1/group', { group_id: 'missing' })).status, 404);
        assert.equal((await rest.post('/things/T-1/installations', { installation_status: 'new' })).status, 409);
        assert.equal((await rest.delete('/groups/missing')).status, 404);
      });
      assert.deepEqual(
        added.filter((entry) => entry.outcome === 'success' && entry.action !== 'auth.login'),
        [],
      );
    });

    test('a change rolled back leaves neither the change nor an entry', async () => {
      const { store, clock } = server.app;
      const principal = { kind: 'client' as const, organizationId: 'acme', clientId: 'acme-client', responsible: 'acme-client' };
      const count = (await entriesOf(server)).length;
      await assert.rejects(
        audited(
          { store, clock },
          principal,
          { organizationId: 'acme', action: 'group.create', target: { type: 'group', id: 'ghost' } },
          async () => {
            await store.groups.create({ organizationId: 'acme', groupId: 'ghost', description: null, createdAt: clock.now() });
            throw new Error('the store failed after the write');
          },
        ),
        /the store failed/,
      );
      assert.equal(await store.groups.get('acme', 'ghost'), undefined, 'the change is rolled back');
      assert.equal((await entriesOf(server)).length, count, 'no entry');
    });

    test('a thing claimed by its first uplink is recorded via mqtt, once; known things add nothing', async () => {
      const t0 = Math.floor(Date.now() / 1000);
      const uplink = (tuid: string, offset: number) => ({ tsmId: 1112, tsmEv: 10, tsmTs: t0 + offset, tsmTuid: tuid, uptime: 5 });
      const added = await entriesAddedBy(server, () => publishUplinks(server, [uplink('NEW-1', 0), uplink('NEW-1', 1), uplink('T-1', 2)]));
      assert.deepEqual(
        added.map((entry) => [entry.action, entry.via, entry.actor.type, entry.target, entry.outcome]),
        [['thing.claim', 'mqtt', 'system', { type: 'thing', id: 'NEW-1' }, 'success']],
      );
      assert.deepEqual(added[0]!.changes, { organizationId: { from: null, to: 'acme' }, installationStatus: { from: null, to: 'new' } });
      assert.deepEqual(await entriesAddedBy(server, () => publishUplinks(server, [uplink('NEW-1', 3)])), []);
    });

    test('the chain verifies after all this (GET /audit/verify)', async () => {
      const verified = await rest.get('/audit/verify');
      assert.equal(verified.status, 200, verified.text);
      assert.equal(verified.body.data.ok, true);
      assert.equal(verified.body.data.first_invalid, null);
      assert.equal(verified.body.data.checked, (await entriesOf(server)).length);
    });
  });
}
