/** SPEC section 16: gateways and the things list's sort, filters and total, REST and GraphQL, on both stores. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { assertGraphqlError, dataOf, type SignedInUser } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import type { TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { minute } from '../../domain/alerts/alert-test-helpers.js';
import { s, start, startFleet, thingTuids } from './fleet-at-scale-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`gateways and the things list on ${target.name}`, { skip: target.skip }, () => {
    const clock = new ManualClock(start);
    let server: TestApp;
    let viewer: SignedInUser;
    let installer: SignedInUser;
    const rest = () => new RestClient(server);
    const tuidsOf = (query: string) => thingTuids(server, query);

    before(async () => {
      ({ server, viewer, installer } = await startFleet(target, clock));
    });
    after(() => server?.stop());

    test('GET /gateways: last seen by arrival, silent since, things, silent things, the credential; state, q, paging', async () => {
      const all = await rest().get('/gateways');
      assert.equal(all.status, 200, all.text);
      assert.deepEqual(all.body.data, {
        gateways: [
          {
            gateway_tuid: 'GW-1',
            last_seen: s(start),
            silent_since: s(start + 10 * minute),
            thing_count: 2,
            things_silent: 0,
            mqtt_username: 'acme-gateway',
          },
          {
            gateway_tuid: 'GW-2',
            last_seen: s(start + 11 * minute),
            silent_since: null,
            thing_count: 1,
            things_silent: 0,
            mqtt_username: 'acme-gateway',
          },
        ],
        next_cursor: null,
      });
      const names = async (query: string) =>
        (await rest().get(`/gateways${query}`)).body.data.gateways.map((g: { gateway_tuid: string }) => g.gateway_tuid);
      assert.deepEqual(await names('?state=silent'), ['GW-1']);
      assert.deepEqual(await names('?state=online'), ['GW-2']);
      assert.deepEqual(await names('?q=w-2'), ['GW-2']);
      const first = await rest().get('/gateways?limit=1');
      assert.deepEqual(
        first.body.data.gateways.map((g: { gateway_tuid: string }) => g.gateway_tuid),
        ['GW-1'],
      );
      assert.deepEqual(await names(`?limit=1&cursor=${first.body.data.next_cursor}`), ['GW-2']);
      for (const [query, field] of [
        ['?state=asleep', 'state'],
        ['?limit=0', 'limit'],
        ['?cursor=bm9wZQ', 'cursor'],
      ] as const) {
        const response = await rest().get(`/gateways${query}`);
        assert.equal(response.status, 400, query);
        assert.deepEqual(
          response.body.errors.map((e: { field: string }) => e.field),
          [field],
        );
      }
    });

    test('GET /gateways/{tuid}: the gateway with its things; 404 for an unknown one, 400 for a bad TUID; GraphQL for every role', async () => {
      const one = await rest().get('/gateways/GW-1');
      assert.equal(one.status, 200, one.text);
      assert.equal(one.body.data.thing_count, 2);
      assert.deepEqual(
        one.body.data.things.map((t: { tuid: string }) => t.tuid),
        ['T-1', 'T-2'],
      );
      assert.equal((await rest().get('/gateways/NOPE')).status, 404);
      assert.equal((await rest().get('/gateways/a%20b')).status, 400);
      const listed = dataOf(
        await viewer.client.request('{ gateways(state: "silent") { nodes { gatewayTuid silentSince thingCount mqttUsername } } }'),
      );
      assert.deepEqual(listed.gateways.nodes, [
        { gatewayTuid: 'GW-1', silentSince: s(start + 10 * minute), thingCount: 2, mqttUsername: 'acme-gateway' },
      ]);
      const detail = dataOf(
        await installer.client.request('{ gateway(tuid: "GW-2") { gateway { gatewayTuid lastSeen } things { tuid } } }'),
      );
      assert.deepEqual(detail.gateway, { gateway: { gatewayTuid: 'GW-2', lastSeen: s(start + 11 * minute) }, things: [{ tuid: 'T-3' }] });
      assert.equal(dataOf(await viewer.client.request('{ gateway(tuid: "NOPE") { things { tuid } } }')).gateway, null);
      assertGraphqlError(await viewer.client.request('{ gateways(state: "asleep") { nodes { gatewayTuid } } }'), 'BAD_USER_INPUT');
    });

    test('things list: sort by last_seen, battery_level, installation_status either way, unknown values last; the total', async () => {
      assert.deepEqual(await tuidsOf('?sort=last_seen:desc'), ['T-3', 'T-2', 'T-1', 'NEVER-1']);
      assert.deepEqual(await tuidsOf('?sort=last_seen:asc'), ['T-1', 'T-2', 'T-3', 'NEVER-1']);
      assert.deepEqual(await tuidsOf('?sort=battery_level'), ['T-1', 'T-2', 'NEVER-1', 'T-3']);
      assert.deepEqual(await tuidsOf('?sort=battery_level:desc'), ['T-2', 'T-1', 'T-3', 'NEVER-1']);
      assert.deepEqual(await tuidsOf('?sort=installation_status:asc'), ['NEVER-1', 'T-1', 'T-2', 'T-3']);
      assert.deepEqual(await tuidsOf('?sort=tuid:desc'), ['T-3', 'T-2', 'T-1', 'NEVER-1']);
      const page = await rest().get('/things?sort=last_seen:desc&limit=1');
      assert.equal(page.body.data.total, 4);
      assert.equal(page.body.data.total_is_estimate, false);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const next: { body: { data: { things: { tuid: string }[]; next_cursor: string | null; total: number } } } = await rest().get(
          `/things?sort=last_seen:desc&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        );
        assert.equal(next.body.data.total, 4, 'the total of the whole list on every page');
        seen.push(...next.body.data.things.map((t) => t.tuid));
        cursor = next.body.data.next_cursor;
      } while (cursor !== null);
      assert.deepEqual(seen, ['T-3', 'T-2', 'T-1', 'NEVER-1']);
      const other = await rest().get(`/things?sort=battery_level&cursor=${page.body.data.next_cursor}`);
      assert.equal(other.status, 400, "a cursor of another sort is not this list's");
      assert.equal(other.body.errors[0].field, 'cursor');
    });

    test('things list: gateway_tuid, battery_below and silent_for_s filters with their totals; bad values named', async () => {
      assert.deepEqual(await tuidsOf('?gateway_tuid=GW-1&sort=last_seen:desc'), ['T-2', 'T-1']);
      assert.equal((await rest().get('/things?gateway_tuid=GW-1')).body.data.total, 2);
      assert.deepEqual(await tuidsOf('?battery_below=20'), ['T-1']);
      assert.deepEqual(await tuidsOf('?silent_for_s=300'), ['NEVER-1', 'T-1', 'T-2']);
      assert.deepEqual(await tuidsOf('?silent_for_s=300&gateway_tuid=GW-1&battery_below=60'), ['T-1', 'T-2']);
      for (const [query, field] of [
        ['?sort=colour', 'sort'],
        ['?sort=tuid:up', 'sort'],
        ['?battery_below=0', 'battery_below'],
        ['?battery_below=101', 'battery_below'],
        ['?silent_for_s=0', 'silent_for_s'],
        ['?gateway_tuid=a%20b', 'gateway_tuid'],
      ] as const) {
        const response = await rest().get(`/things${query}`);
        assert.equal(response.status, 400, `${query}: ${response.text}`);
        assert.deepEqual(
          response.body.errors.map((e: { field: string }) => e.field),
          [field],
          query,
        );
      }
      const gql = dataOf(
        await viewer.client.request(
          '{ things(sort: "battery_level:desc", gatewayTuid: "GW-1", first: 1) { total totalIsEstimate nodes { tuid } pageInfo { hasNextPage endCursor } } }',
        ),
      );
      assert.deepEqual(gql.things, { total: 2, totalIsEstimate: false, nodes: [{ tuid: 'T-2' }], pageInfo: gql.things.pageInfo });
      const next = dataOf(
        await viewer.client.request(
          'query ($a: String) { things(sort: "battery_level:desc", gatewayTuid: "GW-1", after: $a) { nodes { tuid } } }',
          {
            a: gql.things.pageInfo.endCursor,
          },
        ),
      );
      assert.deepEqual(next.things.nodes, [{ tuid: 'T-1' }]);
      assertGraphqlError(await viewer.client.request('{ things(sort: "colour") { total } }'), 'BAD_USER_INPUT');
    });

    test('things silent for DEVICE_TIMEOUT_S count against their gateway', async () => {
      clock.advance(55 * minute);
      const gateways = (await rest().get('/gateways')).body.data.gateways;
      assert.deepEqual(
        gateways.map((g: { gateway_tuid: string; things_silent: number }) => [g.gateway_tuid, g.things_silent]),
        [
          ['GW-1', 2],
          ['GW-2', 0],
        ],
      );
    });
  });
}
