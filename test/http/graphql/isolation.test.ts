/**
 * Organization isolation over GraphQL (SPEC section 2): another organization's things, groups, messages, commands,
 * installations, users, API clients and MQTT credentials answer exactly as unknown ones, and lists never show them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { createOrganization, createUser } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { dataOf, signInAs } from '../../helpers/graphql-users.js';
import { closeMqttClients, collectMessages, connectMqtt } from '../../helpers/mqtt-clients.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';
import { assertAnswersAsUnknown } from './isolation-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const now = Date.UTC(2026, 2, 30, 12, 0, 0);
const interval = { tsmId: 1500, tsmEv: 30, transactionId: 5, measurementInterval: 60, reportInterval: 300 };

for (const target of storeTargets) {
  describe(`GraphQL organization isolation on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let acme: GraphqlClient;
    let acmeViewerId: string;
    let rival: GraphqlClient;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() }, { clock: new ManualClock(now) });
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Rival', id: 'rival' });
      await createUser(deps, { organizationId: 'rival', email: 'boss@rival.test', password: 'rival-password', role: 'Manager' });
      rival = new GraphqlClient(server);
      await rival.login({ email: 'boss@rival.test', password: 'rival-password', organizationName: 'Rival' });
      assert.equal(rival.organizationId, 'rival');

      acme = new GraphqlClient(server);
      await acme.login();
      acmeViewerId = (await signInAs(server, 'Viewer')).userId;
      await publishUplinks(server, [
        { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'ACME-1', tsmGw: 'GW-1', batl: 50 },
        { tsmId: 1112, tsmEv: 10, tsmTs: 1_790_000_001, tsmTuid: 'ACME-2', tsmGw: 'GW-1', uptime: 5 },
      ]);
      dataOf(await acme.request('mutation { createGroup(groupId: "acme-group", description: "Acme only") { groupId } }'));
      dataOf(await acme.request('mutation { assignThingToGroup(tuid: "ACME-1", groupId: "acme-group") { tuid } }'));
      dataOf(await acme.request('mutation { setInstallationStatus(tuid: "ACME-1", status: "installed") { tuid } }'));
      dataOf(await acme.request('mutation S($c: [JSON!]!) { sendCommands(tuid: "ACME-1", commands: $c) { tuid } }', { c: [interval] }));
      await server.app.store.alerts.open({ organizationId: 'acme', tuid: 'ACME-1', alertType: 'battery low', openedAt: now - 3600_000 });
      // The rival owns a thing of its own, to try moving it into Acme's group.
      dataOf(await rival.request('mutation { setInstallationStatus(tuid: "RIVAL-1", status: "installed") { tuid } }'));
    });
    after(() => server?.stop());

    test("thing: another organization's thing is null, as an unknown one", async () => {
      assert.deepEqual((await rival.request('{ thing(tuid: "ACME-1") { tuid } }')).body, { data: { thing: null } });
      await assertAnswersAsUnknown(rival, '{ thing(tuid: "$ID") { tuid groupId } }', 'ACME-1', 'NOPE-1', '');
    });

    test("messages, alerts, commands and installations of another organization's thing: NOT_FOUND as for an unknown one", async () => {
      for (const operation of [
        '{ messages(tuid: "$ID", limit: 5) }',
        '{ alerts(tuid: "$ID") { alertType } }',
        '{ commands(tuid: "$ID") { timestamp } }',
        '{ installations(tuid: "$ID") { installationStatus } }',
      ]) {
        const answer = await assertAnswersAsUnknown(rival, operation, 'ACME-1', 'NOPE-1');
        assert.equal(answer.body.errors?.[0]?.message, 'No thing ACME-1.');
      }
    });

    test("writes on another organization's thing are NOT_FOUND as for an unknown one, and change nothing", async () => {
      // (An unknown thing would be claimed here, so these are compared with the answer to an unknown thing's reads.)
      for (const operation of [
        'mutation { setInstallationStatus(tuid: "ACME-1", status: "uninstalled") { tuid } }',
        'mutation { assignThingToGroup(tuid: "ACME-1", groupId: "unassigned") { tuid } }',
      ]) {
        const answer = await rival.request(operation);
        assert.deepEqual(
          answer.body.errors?.map((e) => [e.message, e.extensions]),
          [['No thing ACME-1.', { code: 'NOT_FOUND' }]],
          operation,
        );
      }
      // Bad input is refused before the thing is looked up, alike for both.
      await assertAnswersAsUnknown(
        rival,
        'mutation { setInstallationStatus(tuid: "$ID", status: "bogus") { tuid } }',
        'ACME-1',
        'NOPE-2',
        'BAD_USER_INPUT',
      );
      await assertAnswersAsUnknown(
        rival,
        'mutation { sendCommands(tuid: "$ID", commands: [{tsmId: 1500, tsmEv: 30, transactionId: 6, measurementInterval: 60, reportInterval: 300}]) { tuid } }',
        'ACME-1',
        'NOPE-3',
      );
      const thing = dataOf(
        await acme.request('{ thing(tuid: "ACME-1") { installationStatus groupId } commands(tuid: "ACME-1") { responsible } }'),
      );
      assert.deepEqual(thing, {
        thing: { installationStatus: 'installed', groupId: 'acme-group' },
        commands: [{ responsible: testBootstrap.BOOTSTRAP_EMAIL }],
      });
    });

    test("a command refused as NOT_FOUND publishes nothing to the other organization's thing", async () => {
      const gateway = await connectMqtt(server.mqttUrl, {
        username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
      });
      const downlinks = collectMessages(gateway);
      await gateway.subscribeAsync('thingdesk/acme/down/+', { qos: 1 });
      await rival.request('mutation S($c: [JSON!]!) { sendCommands(tuid: "ACME-2", commands: $c) { tuid } }', { c: [interval] });
      // A marker sent by Acme afterwards arrives first if the refused one was never published.
      dataOf(
        await acme.request('mutation S($c: [JSON!]!) { sendCommands(tuid: "ACME-2", commands: $c) { responsible } }', {
          c: [{ ...interval, transactionId: 99 }],
        }),
      );
      await downlinks.waitFor(1);
      assert.deepEqual(
        downlinks.received.map((m) => (JSON.parse(m.payload) as { transactionId: number }[])[0]!.transactionId),
        [99],
      );
    });

    test('groups of another organization: NOT_FOUND as unknown ones; the same id is free in each organization', async () => {
      for (const operation of [
        '{ group(groupId: "$ID") { groupId } }',
        'mutation { renameGroup(groupId: "$ID", newGroupId: "stolen") { groupId } }',
        'mutation { deleteGroup(groupId: "$ID") }',
        'mutation { assignThingToGroup(tuid: "RIVAL-1", groupId: "$ID") { tuid } }',
      ]) {
        const answer = await assertAnswersAsUnknown(rival, operation, 'acme-group', 'nope-group');
        assert.equal(answer.body.errors?.[0]?.message, 'No group acme-group.');
      }
      assert.deepEqual(
        dataOf(await acme.request('{ group(groupId: "acme-group") { tuids } }')).group,
        { tuids: ['ACME-1'] },
        "Acme's group is untouched",
      );
      assert.equal(
        dataOf(await rival.request('mutation { createGroup(groupId: "acme-group") { groupId thingCount } }')).createGroup.thingCount,
        0,
      );
      assert.deepEqual(dataOf(await acme.request('{ groups(q: "acme-group") { groupId description thingCount } }')).groups, [
        { groupId: 'acme-group', description: 'Acme only', thingCount: 1 },
      ]);
      dataOf(await rival.request('mutation { deleteGroup(groupId: "acme-group") }'));
      assert.equal(dataOf(await acme.request('{ group(groupId: "acme-group") { groupId } }')).group.groupId, 'acme-group');
    });

    test("lists never include another organization's things, groups, alerts, users, clients or credentials", async () => {
      const lists = dataOf(
        await rival.request(`{
          things { nodes { tuid } }
          groups { groupId thingCount }
          alertingThings
          alertCount
          users { email organizationId }
          apiClients { clientId }
          mqttCredentials { username }
        }`),
      );
      assert.deepEqual(lists.things.nodes, [{ tuid: 'RIVAL-1' }]);
      assert.deepEqual(lists.groups, [{ groupId: 'unassigned', thingCount: 1 }]);
      assert.deepEqual(lists.alertingThings, []);
      assert.equal(lists.alertCount, 0);
      assert.deepEqual(lists.users, [{ email: 'boss@rival.test', organizationId: 'rival' }]);
      assert.deepEqual(lists.apiClients, []);
      assert.deepEqual(lists.mqttCredentials, []);
      assert.deepEqual(dataOf(await rival.request('{ things(groupId: "unassigned") { nodes { tuid } } }')).things.nodes, [
        { tuid: 'RIVAL-1' },
      ]);
    });

    test('users of another organization: setUserRole and deleteUser are NOT_FOUND as for an unknown id; the user is untouched', async () => {
      await assertAnswersAsUnknown(
        rival,
        'mutation { setUserRole(userId: "$ID", role: MANAGER) { id } }',
        acmeViewerId,
        '00000000-0000-4000-8000-000000000000',
      );
      await assertAnswersAsUnknown(rival, 'mutation { deleteUser(userId: "$ID") }', acmeViewerId, '00000000-0000-4000-8000-000000000000');
      const users = dataOf(await acme.request('{ users { id role } }')).users;
      assert.deepEqual(
        users.find((u: { id: string }) => u.id === acmeViewerId),
        { id: acmeViewerId, role: 'VIEWER' },
      );
    });

    test('API clients and MQTT credentials of another organization: revoking is NOT_FOUND as for unknown ones; they keep working', async () => {
      await assertAnswersAsUnknown(
        rival,
        'mutation { revokeApiClient(clientId: "$ID") }',
        testBootstrap.BOOTSTRAP_CLIENT_ID,
        'no-such-client',
      );
      await assertAnswersAsUnknown(
        rival,
        'mutation { revokeMqttCredential(username: "$ID") }',
        testBootstrap.BOOTSTRAP_MQTT_USERNAME,
        'no-such-credential',
      );
      assert.equal((await new RestClient(server).get('/things')).status, 200, "Acme's client still gets tokens");
      const gateway = await connectMqtt(server.mqttUrl, {
        username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
      });
      await gateway.endAsync();
      const listed = dataOf(await acme.request('{ apiClients { clientId revoked } mqttCredentials { username revoked } }'));
      assert.deepEqual(listed.apiClients, [{ clientId: testBootstrap.BOOTSTRAP_CLIENT_ID, revoked: false }]);
      assert.deepEqual(listed.mqttCredentials, [{ username: testBootstrap.BOOTSTRAP_MQTT_USERNAME, revoked: false }]);
    });

    test("a rival's credential cannot act for Acme: its things and groups are its own", async () => {
      const created = dataOf(
        await rival.request('mutation { createApiClient(name: "rival export") { clientId clientSecret } }'),
      ).createApiClient;
      const rivalRest = new RestClient(server, { client_id: created.clientId, client_secret: created.clientSecret });
      assert.equal((await rivalRest.get('/things/ACME-1')).status, 404);
      assert.deepEqual(
        (await rivalRest.get('/things')).body.data.things.map((t: { tuid: string }) => t.tuid),
        ['RIVAL-1'],
      );
    });
  });
}
