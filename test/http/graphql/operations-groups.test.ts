/**
 * GraphQL deployment groups (SPEC section 4): creating, listing, assigning things to, renaming and deleting them. The
 * same domain rules as REST; bad arguments are named by their GraphQL names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf } from '../../helpers/graphql-users.js';
import { closeMqttClients } from '../../helpers/mqtt-clients.js';
import type { TestApp } from '../../helpers/test-app.js';
import { seedFieldService, startFieldServiceServer, type FieldService } from './operations-field-service-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const assign =
  'mutation A($tuid: ID!, $groupId: String!) { assignThingToGroup(tuid: $tuid, groupId: $groupId) { tuid groupId installationStatus } }';
const createGroup =
  'mutation C($groupId: String!, $description: String) { createGroup(groupId: $groupId, description: $description) { groupId description thingCount createdAt } }';
const renameGroup =
  'mutation R($groupId: String!, $newGroupId: String!) { renameGroup(groupId: $groupId, newGroupId: $newGroupId) { groupId description thingCount createdAt } }';
const deleteGroup = 'mutation D($groupId: String!) { deleteGroup(groupId: $groupId) }';
const groupThings = 'query G($groupId: String!) { group(groupId: $groupId) { groupId tuids things { tuid groupId } } }';

/** Group ids that no group can have, each refused naming the argument. */
const invalidGroupIds = ['', 'g'.repeat(65), 'north east', 'north/east', 'north+', 'north#1', 'north\u0001', 'UNASSIGNED'];

for (const target of storeTargets) {
  describe(`GraphQL deployment groups on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let clock: ManualClock;
    let installer: GraphqlClient;
    let manager: GraphqlClient;
    let statusOf: FieldService['statusOf'];

    before(async () => {
      ({ server, clock } = await startFieldServiceServer(target));
      ({ installer, manager, statusOf } = await seedFieldService(server));
    });
    after(() => server?.stop());

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
  });
}
