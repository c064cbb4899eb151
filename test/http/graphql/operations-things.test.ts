/**
 * GraphQL read operations on things for every signed-in role (SPEC section 4): me, organization, thing and the
 * things connection, with the same values as REST.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, dataOf, signInAs } from '../../helpers/graphql-users.js';
import type { RestClient } from '../../helpers/rest-client.js';
import { testBootstrap, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { seedReads, startReadsServer, t0 } from './operations-things-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const thingFields = 'tuid batteryLevel timestamp location { lat lon } gatewayTuid version installationStatus groupId';

for (const target of storeTargets) {
  describe(`GraphQL me, organization and things on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let viewer: GraphqlClient;
    let manager: GraphqlClient;

    before(async () => {
      server = await startReadsServer(target);
      ({ rest, viewer, manager } = await seedReads(server));
    });
    after(() => server?.stop());

    test('me answers User {id, email, role, organizationId} for each role; organization its id and name', async () => {
      const bootstrap = await signInAs(server, 'Installer', { email: 'installer@acme.test' });
      assert.deepEqual(dataOf(await bootstrap.client.request('{ me { id email role organizationId } }')).me, {
        id: bootstrap.userId,
        email: 'installer@acme.test',
        role: 'INSTALLER',
        organizationId: 'acme',
      });
      assert.equal(dataOf(await viewer.request('{ me { role } }')).me.role, 'VIEWER');
      assert.equal(dataOf(await manager.request('{ me { role } }')).me.role, 'MANAGER');
      assert.deepEqual(dataOf(await viewer.request('{ organization { id name } }')).organization, {
        id: 'acme',
        name: testBootstrap.BOOTSTRAP_ORG,
      });
    });

    test('thing: the summary in camelCase, the same values as REST; null for an unknown thing', async () => {
      const { thing } = dataOf(await viewer.request(`query T($tuid: ID!) { thing(tuid: $tuid) { ${thingFields} } }`, { tuid: 'T-1' }));
      assert.deepEqual(thing, {
        tuid: 'T-1',
        batteryLevel: 80,
        timestamp: t0 + 40,
        location: { lat: 60.1699, lon: 24.9384 },
        gatewayTuid: 'GW-1',
        version: '1.4.2',
        installationStatus: 'new',
        groupId: 'unassigned',
      });
      const fromRest = (await rest.get('/things/T-1')).body.data;
      assert.deepEqual(thing, {
        tuid: fromRest.tuid,
        batteryLevel: fromRest.battery_level,
        timestamp: fromRest.timestamp,
        location: fromRest.location,
        gatewayTuid: fromRest.gateway_tuid,
        version: fromRest.version,
        installationStatus: fromRest.installation_status,
        groupId: fromRest.group_id,
      });
      const bare = dataOf(await viewer.request(`{ thing(tuid: "T-2") { ${thingFields} } }`)).thing;
      assert.deepEqual(bare, {
        tuid: 'T-2',
        batteryLevel: null,
        timestamp: t0 + 5,
        location: null,
        gatewayTuid: 'GW-1',
        version: 'unknown',
        installationStatus: 'new',
        groupId: 'unassigned',
      });
      assert.deepEqual(await viewer.request('{ thing(tuid: "NOPE") { tuid } }').then((r) => r.body), { data: { thing: null } });
    });

    test('thing: a TUID outside the rule is BAD_USER_INPUT naming tuid, not null', async () => {
      const response = await viewer.request('{ thing(tuid: "bad tuid") { tuid } }');
      assertBadInput(response, ['tuid']);
      assertBadInput(await viewer.request(`{ thing(tuid: "${'a'.repeat(65)}") { tuid } }`), ['tuid']);
    });

    test('things: a cursor connection, first/after with pageInfo; every edge cursor continues after its node', async () => {
      const page =
        'query P($first: Int, $after: String) { things(first: $first, after: $after) { edges { cursor node { tuid } } nodes { tuid } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }';
      const first = dataOf(await viewer.request(page, { first: 2 })).things;
      assert.equal(first.pageInfo.hasPreviousPage, false);
      assert.equal(first.pageInfo.startCursor, first.edges[0].cursor);
      assert.deepEqual(
        first.nodes.map((n: { tuid: string }) => n.tuid),
        ['T-1', 'T-2'],
      );
      assert.deepEqual(
        first.edges.map((e: { node: { tuid: string } }) => e.node.tuid),
        ['T-1', 'T-2'],
      );
      assert.equal(first.pageInfo.hasNextPage, true);
      assert.equal(first.pageInfo.endCursor, first.edges[1].cursor);
      const second = dataOf(await viewer.request(page, { first: 2, after: first.pageInfo.endCursor })).things;
      assert.deepEqual(
        second.nodes.map((n: { tuid: string }) => n.tuid),
        ['X-3'],
      );
      assert.deepEqual(second.pageInfo, {
        hasNextPage: false,
        hasPreviousPage: true,
        startCursor: second.edges[0].cursor,
        endCursor: null,
      });
      const empty = dataOf(
        await viewer.request('{ things(q: "none-such") { pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }'),
      ).things;
      assert.deepEqual(empty.pageInfo, { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
      const afterFirst = dataOf(await viewer.request(page, { after: first.edges[0].cursor })).things;
      assert.deepEqual(
        afterFirst.nodes.map((n: { tuid: string }) => n.tuid),
        ['T-2', 'X-3'],
      );
      const all = dataOf(await viewer.request(`{ things { nodes { ${thingFields} } } }`)).things.nodes;
      assert.deepEqual(all[0], dataOf(await viewer.request(`{ thing(tuid: "T-1") { ${thingFields} } }`)).thing);
    });

    test('things: filters by q, installationStatus and groupId; bad arguments are BAD_USER_INPUT naming the argument', async () => {
      const tuids = async (args: string) =>
        dataOf(await viewer.request(`{ things(${args}) { nodes { tuid } } }`)).things.nodes.map((n: { tuid: string }) => n.tuid);
      assert.deepEqual(await tuids('q: "t-"'), ['T-1', 'T-2']);
      assert.deepEqual(await tuids('installationStatus: "new"'), ['T-1', 'T-2', 'X-3']);
      assert.deepEqual(await tuids('installationStatus: "installed"'), []);
      assert.deepEqual(await tuids('groupId: "unassigned"'), ['T-1', 'T-2', 'X-3']);
      assert.deepEqual(await tuids('groupId: "north"'), []);
      for (const [args, field] of [
        ['first: 0', 'first'],
        ['first: 1001', 'first'],
        ['after: "xyz"', 'after'],
        ['installationStatus: "broken"', 'installationStatus'],
        ['groupId: "a/b"', 'groupId'],
        ['groupId: "UNASSIGNED"', 'groupId'],
      ] as const) {
        const response = await viewer.request(`{ things(${args}) { nodes { tuid } } }`);
        assertBadInput(response, [field]);
        assert.ok(response.body.errors![0]!.message.startsWith(field), response.body.errors![0]!.message);
      }
    });
  });
}
