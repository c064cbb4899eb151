/**
 * GraphQL messages, alerts and the catalog for every signed-in role (SPEC section 4): the same records as REST, with
 * bad arguments named by their GraphQL names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { messageDefinitions } from '../../../src/catalog/index.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf } from '../../helpers/graphql-users.js';
import type { RestClient } from '../../helpers/rest-client.js';
import type { TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { hour, now, seedReads, startReadsServer, t0 } from './operations-things-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const messagesQuery =
  'query M($tuid: ID!, $limit: Int!, $messageIds: [Int!], $eventIds: [Int!], $from: Int, $to: Int) { messages(tuid: $tuid, limit: $limit, messageIds: $messageIds, eventIds: $eventIds, from: $from, to: $to) }';

for (const target of storeTargets) {
  describe(`GraphQL messages, alerts and the catalog on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let viewer: GraphqlClient;
    const messages = (variables: Record<string, unknown>) => viewer.request(messagesQuery, { tuid: 'T-1', ...variables });

    before(async () => {
      server = await startReadsServer(target);
      ({ rest, viewer } = await seedReads(server));
    });
    after(() => server?.stop());

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
  });
}
