/**
 * assignThingsToGroup: many things into one group in one request, each as assignThingToGroup would, one result per
 * TUID (the studio's bulk assignment on a group's page).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOrganization, createUser } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);

const bulkAssign =
  'mutation B($groupId: String!, $tuids: [ID!]!) { assignThingsToGroup(groupId: $groupId, tuids: $tuids) { tuid thing { tuid groupId } problem { code message } } }';

for (const target of storeTargets) {
  describe(`assignThingsToGroup on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let installer: GraphqlClient;
    let manager: GraphqlClient;
    let viewer: GraphqlClient;
    const groupOf = async (tuid: string) => dataOf(await manager.request(`{ thing(tuid: "${tuid}") { groupId } }`)).thing?.groupId;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      installer = (await signInAs(server, 'Installer')).client;
      manager = (await signInAs(server, 'Manager')).client;
      viewer = (await signInAs(server, 'Viewer')).client;
      await publishUplinks(
        server,
        ['BULK-1', 'BULK-2', 'BULK-3'].map((tuid) => ({ tsmId: 1112, tsmEv: 10, tsmTs: 1_700_000_000, tsmTuid: tuid, uptime: 5 })),
      );
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Rival', id: 'rival' });
      await createUser(deps, { organizationId: 'rival', email: 'boss@rival.test', password: 'rival-password', role: 'Manager' });
      const rival = new GraphqlClient(server);
      await rival.login({ email: 'boss@rival.test', password: 'rival-password', organizationName: 'Rival' });
      dataOf(await rival.request('mutation { setInstallationStatus(tuid: "RIVAL-9", status: "installed") { tuid } }'));
      dataOf(await manager.request('mutation { createGroup(groupId: "bulk-a") { groupId } }'));
    });
    after(() => server?.stop());

    test('assigns each TUID once, in the order named; a bad or foreign TUID gets its own problem and the others go on', async () => {
      const results = dataOf(
        await installer.request(bulkAssign, { groupId: 'bulk-a', tuids: ['BULK-1', 'bad tuid', 'BULK-2', 'RIVAL-9', 'BULK-1'] }),
      ).assignThingsToGroup;
      assert.match(results[1].problem.message, /tuid/);
      assert.deepEqual(results, [
        { tuid: 'BULK-1', thing: { tuid: 'BULK-1', groupId: 'bulk-a' }, problem: null },
        { tuid: 'bad tuid', thing: null, problem: { code: 'BAD_USER_INPUT', message: results[1].problem.message } },
        { tuid: 'BULK-2', thing: { tuid: 'BULK-2', groupId: 'bulk-a' }, problem: null },
        { tuid: 'RIVAL-9', thing: null, problem: { code: 'NOT_FOUND', message: 'No thing RIVAL-9.' } },
      ]);
      assert.equal(await groupOf('BULK-1'), 'bulk-a');
      assert.equal(await groupOf('BULK-3'), 'unassigned', 'a thing not named stays where it was');
      const count = dataOf(await manager.request('{ groups(q: "bulk-a") { thingCount } }')).groups[0].thingCount;
      assert.equal(count, 2);
      // 'unassigned' takes them out again, as the single mutation does.
      dataOf(await installer.request(bulkAssign, { groupId: 'unassigned', tuids: ['BULK-1', 'BULK-2'] }));
      assert.equal(await groupOf('BULK-2'), 'unassigned');
    });

    test('an unknown group is NOT_FOUND before anything changes; an empty or oversized list is BAD_USER_INPUT naming tuids', async () => {
      assertGraphqlError(await installer.request(bulkAssign, { groupId: 'no-such', tuids: ['BULK-3'] }), 'NOT_FOUND', 'No group no-such.');
      assert.equal(await groupOf('BULK-3'), 'unassigned');
      assertBadInput(await installer.request(bulkAssign, { groupId: 'bulk-a', tuids: [] }), ['tuids']);
      const tooMany = Array.from({ length: 501 }, (_, index) => `MANY-${index}`);
      assertBadInput(await installer.request(bulkAssign, { groupId: 'bulk-a', tuids: tooMany }), ['tuids']);
      assertBadInput(await installer.request(bulkAssign, { groupId: 'north east', tuids: ['BULK-3'] }), ['groupId']);
    });

    test('a Viewer cannot call it: refused before running, nothing changes', async () => {
      assertGraphqlError(
        await viewer.request(bulkAssign, { groupId: 'bulk-a', tuids: ['BULK-3'] }),
        'BAD_USER_INPUT',
        /^Cannot query field "assignThingsToGroup" on type "Mutation"/,
      );
      assert.equal(await groupOf('BULK-3'), 'unassigned');
    });
  });
}
