/**
 * GraphQL read operations of every signed-in role (SPEC section 4): me, organization, thing, things, messages,
 * alerts, catalog; and errors that never leak internals, with the operation limits checked before anything runs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GraphQLError } from 'graphql';
import { messageDefinitions } from '../../../src/catalog/index.js';
import { ManualClock } from '../../../src/domain/clock.js';
import { formatGraphqlError } from '../../../src/http/graphql/graphql-errors.js';
import { queryLimits } from '../../../src/http/graphql/validation-rules.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks, summaryUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const t0 = 1_790_000_000;
const now = Date.UTC(2026, 2, 30, 12, 0, 0);
const hour = 3600_000;
const thingFields = 'tuid batteryLevel timestamp location { lat lon } gatewayTuid version installationStatus groupId';
const messagesQuery =
  'query M($tuid: ID!, $limit: Int!, $messageIds: [Int!], $eventIds: [Int!], $from: Int, $to: Int) { messages(tuid: $tuid, limit: $limit, messageIds: $messageIds, eventIds: $eventIds, from: $from, to: $to) }';

for (const target of storeTargets) {
  describe(`GraphQL things, messages and alerts on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let viewer: GraphqlClient;
    let manager: GraphqlClient;
    const messages = (variables: Record<string, unknown>) => viewer.request(messagesQuery, { tuid: 'T-1', ...variables });

    before(async () => {
      server = await startTestApp(
        { DATABASE_URL: await target.createUrl(), ALERT_TIMEZONE: 'Europe/Helsinki' },
        { clock: new ManualClock(now) },
      );
      rest = new RestClient(server);
      viewer = (await signInAs(server, 'Viewer', { email: 'viewer@acme.test' })).client;
      manager = (await signInAs(server, 'Manager', { email: 'second-manager@acme.test' })).client;
      await publishUplinks(server, summaryUplinks(t0));
      // Alert periods written by hand (the engine's own writes are tested with the engine).
      const alerts = server.app.store.alerts;
      await alerts.open({ organizationId: 'acme', tuid: 'T-1', alertType: 'gateway connection lost', openedAt: now - 5 * hour });
      await alerts.close('T-1', 'gateway connection lost', now - 4 * hour);
      await alerts.open({ organizationId: 'acme', tuid: 'T-1', alertType: 'battery low', openedAt: now - 2 * hour });
      await alerts.open({ organizationId: 'acme', tuid: 'T-2', alertType: 'device connection lost', openedAt: now - hour });
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

    test('messages: the stored messages exactly as REST returns them, newest first, with deploymentGroupId', async () => {
      const viaGraphql = dataOf(await messages({ limit: 100 })).messages;
      assert.deepEqual(viaGraphql, (await rest.get('/things/T-1/messages?limit=100')).body.data);
      assert.deepEqual(
        viaGraphql.map((m: { tsmTs: number }) => m.tsmTs),
        [t0 + 40, t0 + 30, t0 + 20, t0 + 10, t0],
      );
      assert.deepEqual(viaGraphql[1], {
        tsmId: 12100,
        tsmEv: 10,
        tsmTs: t0 + 30,
        tsmTuid: 'T-1',
        tsmGw: 'GW-1',
        temp: 21.5,
        deploymentGroupId: 'unassigned',
      });
      assert.equal(dataOf(await messages({ limit: 2 })).messages.length, 2);
    });

    test('messages: messageIds, eventIds, from and to (inclusive) filter as REST does', async () => {
      const timestamps = async (variables: Record<string, unknown>) =>
        dataOf(await messages({ limit: 10, ...variables })).messages.map((m: { tsmTs: number }) => m.tsmTs);
      assert.deepEqual(await timestamps({ messageIds: [1110, 1100] }), [t0 + 40, t0 + 10, t0]);
      assert.deepEqual(await timestamps({ eventIds: [101] }), [t0 + 40]);
      assert.deepEqual(await timestamps({ from: t0 + 10, to: t0 + 30 }), [t0 + 30, t0 + 20, t0 + 10]);
      assert.deepEqual(await timestamps({ messageIds: [1110], eventIds: [10], from: t0, to: t0 + 10 }), [t0 + 10]);
      assert.deepEqual(
        dataOf(await messages({ limit: 10, messageIds: [1110, 1100], eventIds: [10, 11] })).messages,
        (await rest.get('/things/T-1/messages?limit=10&messageid=1110,1100&eventid=10,11')).body.data,
      );
    });

    test('messages: limit 1..10000, from/to non-negative, from > to: BAD_USER_INPUT naming the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ limit: 0 }, 'limit'],
        [{ limit: 10_001 }, 'limit'],
        [{ limit: -1 }, 'limit'],
        [{ limit: 5, from: -1 }, 'from'],
        [{ limit: 5, to: -5 }, 'to'],
        [{ limit: 5, from: t0 + 1, to: t0 }, 'from'],
      ];
      for (const [variables, field] of cases) {
        const response = await messages(variables);
        assertBadInput(response, [field]);
        assert.equal(response.body.data, null, JSON.stringify(variables));
      }
      assert.equal(dataOf(await messages({ limit: 1 })).messages.length, 1);
      assert.equal(dataOf(await messages({ limit: 10_000 })).messages.length, 5);
      // What GraphQL's types already refuse: a missing limit, a fraction.
      assertGraphqlError(
        await viewer.request('{ messages(tuid: "T-1") }'),
        'BAD_USER_INPUT',
        /argument "limit" of type "Int!" is required/,
      );
      assertGraphqlError(
        await viewer.request('{ messages(tuid: "T-1", limit: 2.5) }'),
        'BAD_USER_INPUT',
        /Int cannot represent non-integer value/,
      );
    });

    test('messages of an unknown thing: NOT_FOUND with a plain message and nothing else', async () => {
      const response = await viewer.request('{ messages(limit: 5, tuid: "x") }');
      assert.deepEqual(response.body, {
        errors: [{ message: 'No thing x.', locations: [{ line: 1, column: 3 }], path: ['messages'], extensions: { code: 'NOT_FOUND' } }],
        data: null,
      });
    });

    test('alerts: one record per type, periods as local date-times, to null while active; alertingThings and alertCount', async () => {
      const records = dataOf(await viewer.request('{ alerts(tuid: "T-1") { tuid alertType alerts { from to } } }')).alerts;
      assert.deepEqual(records, [
        { tuid: 'T-1', alertType: 'gateway connection lost', alerts: [{ from: '2026-03-30T10:00:00', to: '2026-03-30T11:00:00' }] },
        { tuid: 'T-1', alertType: 'battery low', alerts: [{ from: '2026-03-30T13:00:00', to: null }] },
      ]);
      const typed = dataOf(await viewer.request('{ alerts(tuid: "T-1") { alertType type } }')).alerts;
      assert.deepEqual(typed, [
        { alertType: 'gateway connection lost', type: 'GATEWAY_CONNECTION_LOST' },
        { alertType: 'battery low', type: 'BATTERY_LOW' },
      ]);
      const fromRest = (await rest.get('/things/T-1/alerts')).body.data;
      assert.deepEqual(
        records,
        fromRest.map((r: { tuid: string; alert_type: string; alerts: unknown[] }) => ({
          tuid: r.tuid,
          alertType: r.alert_type,
          alerts: r.alerts,
        })),
      );
      const s = (ms: number) => Math.floor(ms / 1000);
      const windowed = dataOf(
        await viewer.request(`{ alerts(tuid: "T-1", from: ${s(now - 6 * hour)}, to: ${s(now - 3 * hour)}) { alertType } }`),
      ).alerts;
      assert.deepEqual(windowed, [{ alertType: 'gateway connection lost' }]);
      assert.deepEqual(dataOf(await viewer.request('{ alerts(tuid: "X-3") { alertType } }')).alerts, []);
      assertBadInput(await viewer.request(`{ alerts(tuid: "T-1", from: ${s(now)}, to: ${s(now) - 1}) { alertType } }`), ['from']);
      assertGraphqlError(await viewer.request('{ alerts(tuid: "NOPE") { alertType } }'), 'NOT_FOUND', 'No thing NOPE.');
      assert.deepEqual(dataOf(await viewer.request('{ alertingThings alertCount }')), { alertingThings: ['T-1', 'T-2'], alertCount: 2 });
    });

    test('catalog: every message definition of the catalog, as JSON', async () => {
      const catalog = dataOf(await viewer.request('{ catalog }')).catalog;
      assert.deepEqual(catalog, JSON.parse(JSON.stringify(messageDefinitions)));
      assert.ok(catalog.some((definition: { tsmId: number }) => definition.tsmId === 1500));
    });

    test('an operation over the depth limit is refused with BAD_USER_INPUT before running', async () => {
      // Introspection has its own bounds (introspection.test.ts); the ordinary depth is that of the data fields.
      const nested = (levels: number): string => (levels === 0 ? 'lat' : `location { ${nested(levels - 1)} }`);
      // thing(1), then location levels, then lat.
      const response = await viewer.request(`{ thing(tuid: "T-1") { ${nested(queryLimits.maxDepth - 1)} } }`);
      assertGraphqlError(
        response,
        'BAD_USER_INPUT',
        `The operation is nested ${queryLimits.maxDepth + 1} levels deep; at most ${queryLimits.maxDepth} are allowed.`,
      );
      assert.equal(response.body.data, undefined);
      // At the limit the depth rule is silent: what remains is GraphQL's own refusal of location on Location.
      const atLimit = await viewer.request(`{ thing(tuid: "T-1") { ${nested(queryLimits.maxDepth - 2)} } }`);
      assertGraphqlError(atLimit, 'BAD_USER_INPUT', /^Cannot query field "location" on type "Location"/);
    });

    test('an operation over the field or root-field limits is refused before running: nothing is created', async () => {
      const wide = `{ me { ${'email '.repeat(queryLimits.maxFields)} } }`;
      assertGraphqlError(
        await viewer.request(wide),
        'BAD_USER_INPUT',
        `The operation selects ${queryLimits.maxFields + 1} fields; at most ${queryLimits.maxFields} are allowed.`,
      );
      const creates = Array.from(
        { length: queryLimits.maxRootFields + 1 },
        (_, i) => `g${i}: createGroup(groupId: "limit-${i}") { groupId }`,
      ).join(' ');
      const response = await manager.request(`mutation { ${creates} }`);
      assertGraphqlError(
        response,
        'BAD_USER_INPUT',
        `The operation has ${queryLimits.maxRootFields + 1} top-level fields; at most ${queryLimits.maxRootFields} are allowed.`,
      );
      assert.equal(response.body.data, undefined);
      const groups = dataOf(await manager.request('{ groups(q: "limit-") { groupId } }')).groups;
      assert.deepEqual(groups, [], 'no mutation of a refused operation ran');
      const atLimit = Array.from({ length: queryLimits.maxRootFields }, (_, i) => `m${i}: me { email }`).join(' ');
      assert.equal(Object.keys(dataOf(await viewer.request(`{ ${atLimit} }`))).length, queryLimits.maxRootFields);
    });

    test('an unexpected failure is INTERNAL_SERVER_ERROR with a generic message; the details go only to the log', () => {
      const logged: unknown[] = [];
      const internal = new TypeError("Cannot read properties of undefined (reading 'password_hash') at /srv/thingdesk/store.js:42");
      const formatted = formatGraphqlError(new GraphQLError(internal.message, { originalError: internal, path: ['things'] }), (error) =>
        logged.push(error),
      );
      assert.deepEqual(formatted, {
        message: 'An unexpected error occurred.',
        locations: undefined,
        path: ['things'],
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      });
      assert.deepEqual(logged, [internal]);
    });
  });
}
