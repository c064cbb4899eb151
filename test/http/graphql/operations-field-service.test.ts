/**
 * GraphQL field service and commands (SPEC section 4): installation status and history, deployment groups, sending
 * commands and their history. The same domain rules as REST; bad arguments are named by their GraphQL names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MqttClient } from 'mqtt';
import { ManualClock } from '../../../src/domain/clock.js';
import { installationStatuses } from '../../../src/domain/things/thing-types.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { closeMqttClients, collectMessages, connectMqtt } from '../../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const nowMs = 1_790_000_000_500;
const nowS = 1_790_000_000;
const interval = { tsmId: 1500, tsmEv: 30, transactionId: 77, measurementInterval: 60, reportInterval: 300 };

const setStatus =
  'mutation S($tuid: ID!, $status: String!) { setInstallationStatus(tuid: $tuid, status: $status) { tuid installationStatus timestamp responsible } }';
const assign =
  'mutation A($tuid: ID!, $groupId: String!) { assignThingToGroup(tuid: $tuid, groupId: $groupId) { tuid groupId installationStatus } }';
const createGroup =
  'mutation C($groupId: String!, $description: String) { createGroup(groupId: $groupId, description: $description) { groupId description thingCount createdAt } }';
const renameGroup =
  'mutation R($groupId: String!, $newGroupId: String!) { renameGroup(groupId: $groupId, newGroupId: $newGroupId) { groupId description thingCount createdAt } }';
const deleteGroup = 'mutation D($groupId: String!) { deleteGroup(groupId: $groupId) }';
const groupThings = 'query G($groupId: String!) { group(groupId: $groupId) { groupId tuids things { tuid groupId } } }';
const sendCommands =
  'mutation X($tuid: ID!, $commands: [JSON!]!) { sendCommands(tuid: $tuid, commands: $commands) { tuid timestamp responsible commands } }';

/** Group ids that no group can have, each refused naming the argument. */
const invalidGroupIds = ['', 'g'.repeat(65), 'north east', 'north/east', 'north+', 'north#1', 'north\u0001', 'UNASSIGNED'];

for (const target of storeTargets) {
  describe(`GraphQL field service and commands on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let clock: ManualClock;
    let installer: GraphqlClient;
    let installerEmail: string;
    let manager: GraphqlClient;
    let gateway: MqttClient;
    let downlinks: ReturnType<typeof collectMessages>;
    const statusOf = async (tuid: string) =>
      dataOf(await manager.request(`{ thing(tuid: "${tuid}") { installationStatus groupId } }`)).thing;

    before(async () => {
      clock = new ManualClock(nowMs);
      server = await startTestApp({ DATABASE_URL: await target.createUrl() }, { clock });
      const signedIn = await signInAs(server, 'Installer');
      installer = signedIn.client;
      installerEmail = signedIn.email;
      manager = (await signInAs(server, 'Manager', { email: 'boss@acme.test' })).client;
      gateway = await connectMqtt(server.mqttUrl, {
        username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
      });
      downlinks = collectMessages(gateway);
      await gateway.subscribeAsync('thingdesk/acme/down/+', { qos: 1 });
      await publishUplinks(
        server,
        ['F-1', 'F-2', 'F-3', 'F-4', 'F-5', 'CMD-1', 'CMD-2'].map((tuid) => ({
          tsmId: 1112,
          tsmEv: 10,
          tsmTs: 1_700_000_000,
          tsmTuid: tuid,
          uptime: 5,
        })),
      );
    });
    after(() => server?.stop());

    test("setInstallationStatus answers {tuid, installationStatus, timestamp, responsible}, responsible the user's e-mail", async () => {
      clock.advance(2_000);
      const response = await installer.request(setStatus, { tuid: 'F-1', status: 'installed' });
      assert.deepEqual(dataOf(response).setInstallationStatus, {
        tuid: 'F-1',
        installationStatus: 'installed',
        timestamp: nowS + 2,
        responsible: installerEmail,
      });
      assert.equal((await statusOf('F-1')).installationStatus, 'installed');
      const history = dataOf(
        await installer.request('{ installations(tuid: "F-1") { installationStatus timestamp responsible } }'),
      ).installations;
      assert.deepEqual(history, [
        { installationStatus: 'installed', timestamp: nowS + 2, responsible: installerEmail },
        { installationStatus: 'new', timestamp: nowS, responsible: 'uplink' },
      ]);
      const full = await installer.request(
        'mutation { setInstallationStatus(tuid: "F-1", status: "installed") { tuid installationStatus groupId timestamp responsible } }',
      );
      assert.deepEqual(
        dataOf(full).setInstallationStatus,
        { tuid: 'F-1', installationStatus: 'installed', groupId: 'unassigned', timestamp: nowS + 2, responsible: installerEmail },
        'the same status again is a no-op',
      );
    });

    test('setInstallationStatus: a disallowed move is CONFLICT naming the allowed next states; nothing changes', async () => {
      const error = assertGraphqlError(
        await installer.request(setStatus, { tuid: 'F-2', status: 'uninstalled' }),
        'CONFLICT',
        'The installation status cannot move from new to uninstalled; allowed next: installed, quarantine, retired.',
      );
      assert.deepEqual(error.extensions?.allowed, ['installed', 'quarantine', 'retired']);
      assert.equal((await statusOf('F-2')).installationStatus, 'new');
      await installer.request(setStatus, { tuid: 'F-2', status: 'retired' });
      const final = assertGraphqlError(await installer.request(setStatus, { tuid: 'F-2', status: 'installed' }), 'CONFLICT');
      assert.deepEqual(final.extensions?.allowed, []);
    });

    test('Thing.nextInstallationStatuses offers exactly the moves setInstallationStatus accepts, none once retired', async () => {
      const next = async (tuid: string): Promise<string[]> =>
        dataOf(await installer.request(`{ thing(tuid: "${tuid}") { installationStatus nextInstallationStatuses } }`)).thing
          .nextInstallationStatuses;
      dataOf(await installer.request(setStatus, { tuid: 'NEXT-1', status: 'new' }));
      // Along a path through every status: each status not offered is refused naming the offered ones, and the
      // path's next step (offered) is applied.
      let current = 'new';
      for (const step of ['quarantine', 'uninstalled', 'installed', 'retired']) {
        const offered = await next('NEXT-1');
        assert.ok(offered.includes(step), `${current} offers ${step}`);
        for (const status of installationStatuses.filter((s) => s !== current && !offered.includes(s))) {
          const error = assertGraphqlError(await installer.request(setStatus, { tuid: 'NEXT-1', status }), 'CONFLICT');
          assert.deepEqual(error.extensions?.allowed, offered, `${current} -> ${status}`);
        }
        dataOf(await installer.request(setStatus, { tuid: 'NEXT-1', status: step }));
        current = step;
      }
      assert.deepEqual(await next('NEXT-1'), []);
      const page = dataOf(await installer.request('{ things(q: "NEXT-1") { nodes { tuid nextInstallationStatuses } } }')).things;
      assert.deepEqual(page.nodes, [{ tuid: 'NEXT-1', nextInstallationStatuses: [] }], 'the same field on a page of things');
    });

    test('setInstallationStatus: an unknown status or a bad TUID is BAD_USER_INPUT naming the argument', async () => {
      for (const status of ['bogus', 'INSTALLED', '']) {
        const response = await installer.request(setStatus, { tuid: 'F-3', status });
        assertBadInput(response, ['status']);
        assert.match(response.body.errors![0]!.message, /^status must be one of new, installed, uninstalled, quarantine, retired$/);
      }
      assertBadInput(await installer.request(setStatus, { tuid: 'bad tuid', status: 'installed' }), ['tuid']);
      assert.equal((await statusOf('F-3')).installationStatus, 'new');
    });

    test('setInstallationStatus claims a thing nobody owns; a refused move on one claims nothing', async () => {
      assert.equal(
        dataOf(await installer.request(setStatus, { tuid: 'FRESH-1', status: 'quarantine' })).setInstallationStatus.installationStatus,
        'quarantine',
      );
      const history = dataOf(await manager.request('{ installations(tuid: "FRESH-1") { installationStatus responsible } }')).installations;
      assert.deepEqual(history, [
        { installationStatus: 'quarantine', responsible: installerEmail },
        { installationStatus: 'new', responsible: installerEmail },
      ]);
      assertGraphqlError(await installer.request(setStatus, { tuid: 'FRESH-2', status: 'uninstalled' }), 'CONFLICT');
      assert.equal(dataOf(await manager.request('{ thing(tuid: "FRESH-2") { tuid } }')).thing, null);
    });

    test('installations: newest first, limit 1..1000; unknown thing NOT_FOUND', async () => {
      assert.equal(
        dataOf(await installer.request('{ installations(tuid: "F-1", limit: 1) { installationStatus } }')).installations.length,
        1,
      );
      for (const limit of [0, 1001])
        assertBadInput(await installer.request(`{ installations(tuid: "F-1", limit: ${limit}) { installationStatus } }`), ['limit']);
      assertGraphqlError(await installer.request('{ installations(tuid: "NOPE") { installationStatus } }'), 'NOT_FOUND', 'No thing NOPE.');
    });

    test('createGroup answers the Group (description null when absent, thingCount 0, createdAt in seconds)', async () => {
      assert.deepEqual(dataOf(await manager.request(createGroup, { groupId: 'north', description: 'North site' })).createGroup, {
        groupId: 'north',
        description: 'North site',
        thingCount: 0,
        createdAt: Math.floor(clock.now() / 1000),
      });
      assert.equal(dataOf(await manager.request(createGroup, { groupId: 'south' })).createGroup.description, null);
      assert.equal(
        dataOf(await manager.request(createGroup, { groupId: 'ryhmä-1', description: 'd'.repeat(1024) })).createGroup.groupId,
        'ryhmä-1',
      );
    });

    test('createGroup: a duplicate is CONFLICT; a bad id or description is BAD_USER_INPUT naming the argument', async () => {
      await manager.request(createGroup, { groupId: 'dup' });
      assertGraphqlError(
        await manager.request(createGroup, { groupId: 'dup', description: 'again' }),
        'CONFLICT',
        'Group dup already exists.',
      );
      for (const groupId of invalidGroupIds) assertBadInput(await manager.request(createGroup, { groupId }), ['groupId']);
      assertBadInput(await manager.request(createGroup, { groupId: 'too-long', description: 'd'.repeat(1025) }), ['description']);
      assertBadInput(await manager.request(createGroup, { groupId: 'a b', description: 'd'.repeat(1025) }), ['groupId', 'description']);
      assertGraphqlError(await manager.request('{ group(groupId: "too-long") { groupId } }'), 'NOT_FOUND', 'No group too-long.');
    });

    test('groups(q, limit): sorted by id with the unassigned pseudo-group, each with its thing count', async () => {
      await manager.request(createGroup, { groupId: 'list-b', description: 'Second' });
      await manager.request(createGroup, { groupId: 'list-a' });
      const listed = dataOf(await installer.request('{ groups(q: "LIST-") { groupId description thingCount } }')).groups;
      assert.deepEqual(listed, [
        { groupId: 'list-a', description: null, thingCount: 0 },
        { groupId: 'list-b', description: 'Second', thingCount: 0 },
      ]);
      assert.deepEqual(
        dataOf(await installer.request('{ groups(q: "second") { groupId } }')).groups,
        [{ groupId: 'list-b' }],
        'q matches descriptions',
      );
      const all = dataOf(await installer.request('{ groups { groupId description createdAt } }')).groups;
      const ids = all.map((g: { groupId: string }) => g.groupId);
      assert.deepEqual(ids, [...ids].sort());
      assert.deepEqual(
        all.find((g: { groupId: string }) => g.groupId === 'unassigned'),
        { groupId: 'unassigned', description: null, createdAt: null },
      );
      assert.equal(dataOf(await installer.request('{ groups(limit: 1) { groupId } }')).groups.length, 1);
      for (const limit of [0, 1001]) assertBadInput(await installer.request(`{ groups(limit: ${limit}) { groupId } }`), ['limit']);
    });

    test('assignThingToGroup answers the Thing; unknown group NOT_FOUND; unassigned removes; bad id BAD_USER_INPUT', async () => {
      await manager.request(createGroup, { groupId: 'assign-a' });
      assert.deepEqual(dataOf(await installer.request(assign, { tuid: 'F-4', groupId: 'assign-a' })).assignThingToGroup, {
        tuid: 'F-4',
        groupId: 'assign-a',
        installationStatus: 'new',
      });
      const full = dataOf(await installer.request('{ thing(tuid: "F-4") { groupId } groups(q: "assign-a") { thingCount } }'));
      assert.deepEqual(full, { thing: { groupId: 'assign-a' }, groups: [{ thingCount: 1 }] });
      assertGraphqlError(
        await installer.request(assign, { tuid: 'F-4', groupId: 'no-such-group' }),
        'NOT_FOUND',
        'No group no-such-group.',
      );
      assert.equal((await statusOf('F-4')).groupId, 'assign-a', 'a refused assignment changes nothing');
      for (const groupId of invalidGroupIds.filter((id) => id !== 'UNASSIGNED'))
        assertBadInput(await installer.request(assign, { tuid: 'F-4', groupId }), ['groupId']);
      assertBadInput(await installer.request(assign, { tuid: 'bad tuid', groupId: 'assign-a' }), ['tuid']);
      assert.equal(
        dataOf(await installer.request(assign, { tuid: 'F-4', groupId: 'unassigned' })).assignThingToGroup.groupId,
        'unassigned',
      );
      assert.equal(
        dataOf(await installer.request(assign, { tuid: 'FRESH-3', groupId: 'assign-a' })).assignThingToGroup.installationStatus,
        'new',
        'claims an unowned thing',
      );
    });

    test('group(groupId): its TUIDs and things; unassigned lists the things in no group; unknown NOT_FOUND', async () => {
      await manager.request(createGroup, { groupId: 'members' });
      await installer.request(assign, { tuid: 'F-5', groupId: 'members' });
      assert.deepEqual(dataOf(await installer.request(groupThings, { groupId: 'members' })).group, {
        groupId: 'members',
        tuids: ['F-5'],
        things: [{ tuid: 'F-5', groupId: 'members' }],
      });
      const ungrouped = dataOf(await installer.request(groupThings, { groupId: 'unassigned' })).group;
      assert.equal(ungrouped.groupId, 'unassigned');
      assert.ok(ungrouped.tuids.includes('F-1') && !ungrouped.tuids.includes('F-5'));
      assertGraphqlError(await installer.request(groupThings, { groupId: 'nope' }), 'NOT_FOUND', 'No group nope.');
      assertBadInput(await installer.request(groupThings, { groupId: 'a/b' }), ['groupId']);
    });

    test('renameGroup answers the renamed Group; its things follow; taken CONFLICT, unknown NOT_FOUND, bad ids named', async () => {
      await manager.request(createGroup, { groupId: 'old-name', description: 'Renamed' });
      await installer.request(assign, { tuid: 'CMD-2', groupId: 'old-name' });
      const renamed = dataOf(await manager.request(renameGroup, { groupId: 'old-name', newGroupId: 'new-name' })).renameGroup;
      assert.deepEqual({ ...renamed, createdAt: 0 }, { groupId: 'new-name', description: 'Renamed', thingCount: 1, createdAt: 0 });
      assert.equal((await statusOf('CMD-2')).groupId, 'new-name');
      assertGraphqlError(
        await manager.request(renameGroup, { groupId: 'new-name', newGroupId: 'north' }),
        'CONFLICT',
        'Group north already exists.',
      );
      assertGraphqlError(
        await manager.request(renameGroup, { groupId: 'old-name', newGroupId: 'newer' }),
        'NOT_FOUND',
        'No group old-name.',
      );
      assertBadInput(await manager.request(renameGroup, { groupId: 'new-name', newGroupId: 'a b' }), ['newGroupId']);
      assertBadInput(await manager.request(renameGroup, { groupId: 'a b', newGroupId: 'fine' }), ['groupId']);
    });

    test('deleteGroup answers true and leaves its things unassigned; unknown NOT_FOUND; bad id BAD_USER_INPUT', async () => {
      await manager.request(createGroup, { groupId: 'doomed' });
      await installer.request(assign, { tuid: 'F-3', groupId: 'doomed' });
      assert.deepEqual(dataOf(await manager.request(deleteGroup, { groupId: 'doomed' })), { deleteGroup: true });
      assert.equal((await statusOf('F-3')).groupId, 'unassigned');
      assertGraphqlError(await manager.request(deleteGroup, { groupId: 'doomed' }), 'NOT_FOUND', 'No group doomed.');
      assertBadInput(await manager.request(deleteGroup, { groupId: 'a/b' }), ['groupId']);
    });

    test('sendCommands answers {tuid, timestamp, responsible, commands}, stores the request and publishes the downlink', async () => {
      const response = await manager.request(sendCommands, { tuid: 'CMD-1', commands: [{ ...interval, tsmTs: 5 }] });
      const sent = dataOf(response).sendCommands;
      const timestamp = Math.floor(clock.now() / 1000);
      assert.deepEqual(sent, {
        tuid: 'CMD-1',
        timestamp,
        responsible: 'boss@acme.test',
        commands: [{ ...interval, tsmTs: timestamp, tsmDstTuid: 'CMD-1' }],
      });
      await downlinks.waitFor(1);
      assert.deepEqual(JSON.parse(downlinks.received.find((m) => m.topic === 'thingdesk/acme/down/CMD-1')!.payload), sent.commands);
      const inline = await manager.request(
        'mutation { sendCommands(tuid: "CMD-1", commands: [{tsmId: 13200, tsmEv: 30, transactionId: 9, vendor: {mode: "eco", levels: [1, 2]}}]) { commands } }',
      );
      assert.deepEqual(
        dataOf(inline).sendCommands.commands[0].vendor,
        { mode: 'eco', levels: [1, 2] },
        'JSON literals are read inline too',
      );
    });

    test('sendCommands: a bad command is BAD_USER_INPUT naming commands[i].field; all or nothing', async () => {
      const table: [unknown[], string[]][] = [
        [[{ ...interval, tsmId: 1502 }], ['commands[0].tsmId']],
        [[interval, { ...interval, reportInterval: '300' }], ['commands[1].reportInterval']],
        [[{ ...interval, tsmEv: 30.5, transactionId: '77' }], ['commands[0].tsmEv', 'commands[0].transactionId']],
        [[{ ...interval, colour: 'red' }], ['commands[0].colour']],
        [[{ ...interval, tsmDstTuid: 'CMD-1' }], ['commands[0].tsmDstTuid']],
        [[], ['commands']],
        [Array.from({ length: 101 }, () => interval), ['commands']],
      ];
      for (const [commands, fields] of table) {
        const response = await manager.request(sendCommands, { tuid: 'CMD-2', commands });
        const named = [...new Set(((response.body.errors?.[0]?.extensions?.errors ?? []) as { field: string }[]).map((e) => e.field))];
        assert.equal(response.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', JSON.stringify(response.body));
        assert.deepEqual(named, fields, JSON.stringify(response.body));
      }
      assert.deepEqual(dataOf(await manager.request('{ commands(tuid: "CMD-2") { tuid } }')).commands, [], 'nothing was stored');
      assertGraphqlError(
        await manager.request(sendCommands, { tuid: 'NOBODY-1', commands: [interval] }),
        'NOT_FOUND',
        'No thing NOBODY-1.',
      );
      assertBadInput(await manager.request(sendCommands, { tuid: 'bad tuid', commands: [interval] }), ['tuid']);
    });

    test('commands: the history, newest first, each command with status; limit; unknown NOT_FOUND', async () => {
      clock.advance(1_000);
      await manager.request(sendCommands, {
        tuid: 'CMD-1',
        commands: [
          { ...interval, transactionId: 78 },
          { ...interval, transactionId: 79 },
        ],
      });
      const history = dataOf(
        await installer.request('{ commands(tuid: "CMD-1") { tuid timestamp responsible command commands } }'),
      ).commands;
      assert.equal(history.length, 3);
      const [newest] = history;
      assert.equal(newest.responsible, 'boss@acme.test');
      assert.equal(newest.timestamp, Math.floor(clock.now() / 1000));
      assert.deepEqual(
        newest.commands.map((c: { transactionId: number; status: string; response: unknown }) => [c.transactionId, c.status, c.response]),
        [
          [78, 'sent', null],
          [79, 'sent', null],
        ],
      );
      assert.deepEqual(newest.command, newest.commands[0]);
      // The statuses as an enum beside the JSON: the same words.
      const typed = dataOf(await installer.request('{ commands(tuid: "CMD-1") { status statuses commands } }')).commands;
      for (const record of typed) {
        assert.deepEqual(
          record.statuses,
          record.commands.map((c: { status: string }) => c.status),
        );
        assert.equal(record.status, record.commands[0].status);
      }
      assert.deepEqual(typed[0].statuses, ['sent', 'sent']);
      assert.equal(dataOf(await installer.request('{ commands(tuid: "CMD-1", limit: 1) { timestamp } }')).commands.length, 1);
      assertBadInput(await installer.request('{ commands(tuid: "CMD-1", limit: -1) { timestamp } }'), ['limit']);
      assertGraphqlError(await installer.request('{ commands(tuid: "NOPE") { timestamp } }'), 'NOT_FOUND', 'No thing NOPE.');
    });
  });
}
