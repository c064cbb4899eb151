/**
 * The fleet overview (issue 14): GraphQL `fleetHealth` and REST `GET /fleet/health` answer the same figures, and
 * every figure equals what this file computes from the things, statuses, groups and alert periods it seeds; the
 * `alerting` filter of the things list, with cursor paging. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AlertType } from '../../src/domain/alerts/alert-types.js';
import { formatLocalDateTime } from '../../src/domain/alerts/local-time.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createApiClient, createMqttCredential, createOrganization } from '../../src/domain/identity/identity-service.js';
import type { InstallationStatus } from '../../src/domain/things/thing-types.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { assertBadInput, dataOf, signInAs, type SignedInUser } from '../helpers/graphql-users.js';
import { closeMqttClients, connectMqtt } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const now = Date.UTC(2026, 2, 30, 12, 0, 0);
const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
const zone = 'Europe/Helsinki';
const batteryLowPercent = 15;

interface SeededThing {
  tuid: string;
  /** null: never reports a battery level (claimed through REST, never heard). */
  batl: number | null;
  status: InstallationStatus;
  group: string | null;
}

// Levels on both sides of every bucket bound and of the low threshold; every status; two groups and none.
const fleet: SeededThing[] = [
  { tuid: 'FH-01', batl: null, status: 'installed', group: 'north' },
  { tuid: 'FH-02', batl: 3, status: 'installed', group: 'north' },
  { tuid: 'FH-03', batl: 14.6, status: 'installed', group: 'north' },
  { tuid: 'FH-04', batl: 15, status: 'installed', group: 'north' },
  { tuid: 'FH-05', batl: 29.9, status: 'installed', group: 'south' },
  { tuid: 'FH-06', batl: 30, status: 'installed', group: 'south' },
  { tuid: 'FH-07', batl: 49, status: 'installed', group: null },
  { tuid: 'FH-08', batl: 50, status: 'uninstalled', group: 'south' },
  { tuid: 'FH-09', batl: 79.5, status: 'quarantine', group: null },
  { tuid: 'FH-10', batl: 80, status: 'retired', group: 'north' },
  { tuid: 'FH-11', batl: 100, status: 'new', group: null },
  { tuid: 'FH-12', batl: 60, status: 'installed', group: null },
];
const groupIds = ['north', 'south', 'spare'];

interface SeededPeriod {
  tuid: string;
  type: AlertType;
  gateway?: string;
  openedAt: number;
  closedAt: number | null;
}

// Connection periods written by hand (the engine's own writes are tested in test/domain/alerts/). The alert engine
// adds `battery low` on ingest for the levels below BATTERY_LOW_PERCENT, at arrival (now).
const periods: SeededPeriod[] = [
  // Overlapping device and gateway periods on one thing: counted once in the downtime.
  { tuid: 'FH-02', type: 'device connection lost', openedAt: now - 2 * hour, closedAt: null },
  { tuid: 'FH-02', type: 'gateway connection lost', gateway: 'GW-1', openedAt: now - 3 * hour, closedAt: now - hour },
  // One period crossing the 30-day window's start (clipped), one inside it, one before it.
  { tuid: 'FH-05', type: 'device connection lost', openedAt: now - 31 * day, closedAt: now - 29 * day },
  { tuid: 'FH-05', type: 'device connection lost', openedAt: now - 10 * day, closedAt: now - 10 * day + 5 * hour },
  { tuid: 'FH-05', type: 'gateway connection lost', gateway: 'GW-1', openedAt: now - 40 * day, closedAt: now - 35 * day },
  // A silent gateway on two things, one in no group.
  { tuid: 'FH-06', type: 'gateway connection lost', gateway: 'GW-2', openedAt: now - 30 * minute, closedAt: null },
  { tuid: 'FH-12', type: 'gateway connection lost', gateway: 'GW-2', openedAt: now - 40 * minute, closedAt: null },
  // Things not installed: alerting, but outside online and uptime.
  { tuid: 'FH-08', type: 'device connection lost', openedAt: now - 6 * hour, closedAt: null },
  { tuid: 'FH-09', type: 'device connection lost', openedAt: now - 5 * day, closedAt: now - 4 * day },
];

const connectionTypes: readonly AlertType[] = ['device connection lost', 'gateway connection lost'];
const shown = (group: string | null) => group ?? 'unassigned';
const bucketOf = (level: number | null) =>
  level === null ? 'unknown' : level < 15 ? '0-14' : level < 30 ? '15-29' : level < 50 ? '30-49' : level < 80 ? '50-79' : '80-100';
const buckets = ['unknown', '0-14', '15-29', '30-49', '50-79', '80-100'];

/** Every active period: the hand-written ones and the engine's battery alerts, as the store will hold them. */
function activePeriods(): SeededPeriod[] {
  const battery = fleet
    .filter((thing) => thing.batl !== null && thing.batl < batteryLowPercent)
    .map((thing): SeededPeriod => ({ tuid: thing.tuid, type: 'battery low', openedAt: now, closedAt: null }));
  return [...periods.filter((p) => p.closedAt === null), ...battery];
}

/** A thing's connection-alert time in [now - days, now], its periods merged where they overlap (ms). */
function downtimeOf(tuid: string, days: number): number {
  const start = now - days * day;
  const spans = periods
    .filter((p) => p.tuid === tuid && connectionTypes.includes(p.type))
    .map((p) => [Math.max(p.openedAt, start), Math.min(p.closedAt ?? now, now)] as const)
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let reach = -Infinity;
  for (const [s, e] of spans) {
    if (e <= reach) continue;
    total += e - Math.max(s, reach);
    reach = e;
  }
  return total;
}

/** The fleet overview as GraphQL should answer it, computed from the seed. */
function expectedHealth(options: { days: number; limit: number; batteryBelow: number }) {
  const active = activePeriods();
  const since = (ms: number) => ({ since: Math.floor(ms / 1000), sinceLocal: formatLocalDateTime(ms, zone) });
  const statusCounts = { total: fleet.length, new: 0, installed: 0, uninstalled: 0, quarantine: 0, retired: 0 };
  for (const thing of fleet) statusCounts[thing.status] += 1;
  const alerts = [...active]
    .sort((a, b) => b.openedAt - a.openedAt || a.tuid.localeCompare(b.tuid) || a.type.localeCompare(b.type))
    .slice(0, options.limit)
    .map((p) => ({ tuid: p.tuid, alertType: p.type, ...since(p.openedAt) }));
  const silent = new Map<string, { count: number; openedAt: number }>();
  for (const p of active.filter((p) => p.type === 'gateway connection lost')) {
    const entry = silent.get(p.gateway!) ?? { count: 0, openedAt: Infinity };
    silent.set(p.gateway!, { count: entry.count + 1, openedAt: Math.min(entry.openedAt, p.openedAt) });
  }
  const low = fleet
    .filter((thing) => thing.batl !== null && thing.batl < options.batteryBelow)
    .sort((a, b) => a.batl! - b.batl! || a.tuid.localeCompare(b.tuid));
  const down = (tuid: string) => active.some((p) => p.tuid === tuid && connectionTypes.includes(p.type));
  const groups = [...groupIds, null].map((group) => {
    const members = fleet.filter((thing) => thing.group === group);
    const installed = members.filter((thing) => thing.status === 'installed');
    const online = installed.filter((thing) => !down(thing.tuid)).length;
    const downMs = installed.reduce((sum, thing) => sum + downtimeOf(thing.tuid, options.days), 0);
    return {
      groupId: shown(group),
      thingCount: members.length,
      installed: installed.length,
      online,
      onlineShare: installed.length === 0 ? null : online / installed.length,
      downtimeSeconds: downMs / 1000,
      uptime: installed.length === 0 ? null : 1 - downMs / (installed.length * options.days * day),
      battery: buckets.map((bucket) => ({ bucket, count: installed.filter((thing) => bucketOf(thing.batl) === bucket).length })),
    };
  });
  return {
    generatedAt: now / 1000,
    windowDays: options.days,
    batteryBelow: options.batteryBelow,
    statusCounts,
    alerting: { thingCount: new Set(active.map((p) => p.tuid)).size, alertCount: active.length, alerts },
    silentGateways: {
      count: silent.size,
      gateways: [...silent.entries()]
        .sort((a, b) => b[1].openedAt - a[1].openedAt)
        .slice(0, options.limit)
        .map(([gatewayTuid, entry]) => ({ gatewayTuid, thingCount: entry.count, ...since(entry.openedAt) })),
    },
    lowBattery: {
      count: low.length,
      things: low.slice(0, options.limit).map((thing) => ({ tuid: thing.tuid, batteryLevel: Math.round(thing.batl!) })),
    },
    groups,
  };
}

const fleetHealthQuery = `query ($days: Int, $limit: Int, $batteryBelow: Int) {
  fleetHealth(days: $days, limit: $limit, batteryBelow: $batteryBelow) {
    generatedAt windowDays batteryBelow
    statusCounts { total new installed uninstalled quarantine retired }
    alerting { thingCount alertCount alerts { tuid alertType since sinceLocal } }
    silentGateways { count gateways { gatewayTuid thingCount since sinceLocal } }
    lowBattery { count things { tuid batteryLevel } }
    groups { groupId thingCount installed online onlineShare downtimeSeconds uptime battery { bucket count } }
  }
}`;

/** GraphQL's camelCase keys in REST's snake_case (values untouched). */
function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeKeys(field)]),
  );
}

for (const target of storeTargets) {
  describe(`fleet health on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let viewer: SignedInUser;

    before(async () => {
      server = await startTestApp(
        // The engine's timer would judge the hand-written periods against the seeded arrivals; only ingest runs.
        { DATABASE_URL: await target.createUrl(), ALERT_TIMEZONE: zone, ALERT_INTERVAL_S: '86400' },
        { clock: new ManualClock(now) },
      );
      rest = new RestClient(server);
      const heard = fleet.filter((thing) => thing.batl !== null);
      await publishUplinks(
        server,
        heard.map((thing) => ({ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: thing.tuid, batl: thing.batl })),
      );
      await server.app.alertEngine.settled();
      for (const groupId of groupIds) assert.equal((await rest.post('/groups', { group_id: groupId })).status, 200);
      for (const thing of fleet) {
        const path = (status: string) => rest.post(`/things/${thing.tuid}/installations`, { installation_status: status });
        if (thing.status === 'uninstalled') assert.equal((await path('installed')).status, 200);
        if (thing.status !== 'new') assert.equal((await path(thing.status)).status, 200, thing.tuid);
        else if (thing.batl === null) assert.equal((await path('new')).status, 200, thing.tuid);
        if (thing.group) assert.equal((await rest.post(`/things/${thing.tuid}/group`, { group_id: thing.group })).status, 200);
      }
      const alerts = server.app.store.alerts;
      for (const p of periods) {
        await alerts.open({ organizationId: 'acme', tuid: p.tuid, alertType: p.type, gatewayTuid: p.gateway, openedAt: p.openedAt });
        if (p.closedAt !== null) assert.ok(await alerts.close(p.tuid, p.type, p.closedAt));
      }

      // Another organization with things in every figure: an installed thing in a group, alerting, low on battery.
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Rival', id: 'rival' });
      const client = await createApiClient(deps, { organizationId: 'rival', name: 'rival' });
      const rival = new RestClient(server, { client_id: client.client.clientId, client_secret: client.clientSecret });
      await createMqttCredential(deps, { organizationId: 'rival', kind: 'gateway', username: 'rival-gw', password: 'rival-gateway-pw-1' });
      const gateway = await connectMqtt(server.mqttUrl, { username: 'rival-gw', password: 'rival-gateway-pw-1' });
      const uplink = [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'RV-1', batl: 16 }];
      await gateway.publishAsync('thingdesk/rival/up/RGW-1', JSON.stringify(uplink), { qos: 1 });
      await gateway.endAsync();
      assert.equal((await rival.post('/groups', { group_id: 'north' })).status, 200);
      assert.equal((await rival.post('/things/RV-1/installations', { installation_status: 'installed' })).status, 200);
      assert.equal((await rival.post('/things/RV-1/group', { group_id: 'north' })).status, 200);
      await alerts.open({
        organizationId: 'rival',
        tuid: 'RV-1',
        alertType: 'gateway connection lost',
        gatewayTuid: 'RGW-1',
        openedAt: now - day,
      });

      viewer = await signInAs(server, 'Viewer');
    });
    after(() => server?.stop());

    test('a Viewer reads fleetHealth: every figure as the seeded things and alert periods imply (defaults: 30 days, 50, BATTERY_LOW_PERCENT)', async () => {
      const health = dataOf(await viewer.client.request(fleetHealthQuery)).fleetHealth;
      assert.deepEqual(health, expectedHealth({ days: 30, limit: 50, batteryBelow: batteryLowPercent }));
      // The seed is not trivial: the figures that matter differ from their neutral values.
      assert.ok(health.alerting.thingCount >= 5 && health.silentGateways.count === 1 && health.lowBattery.count === 2);
      const north = health.groups.find((group: { groupId: string }) => group.groupId === 'north') as {
        uptime: number;
        onlineShare: number;
      };
      assert.ok(north.uptime < 1 && north.onlineShare < 1);
    });

    test('days, limit and batteryBelow change the window, the lists and the threshold', async () => {
      const options = { days: 11, limit: 2, batteryBelow: 50 };
      const health = dataOf(await viewer.client.request(fleetHealthQuery, options)).fleetHealth;
      assert.deepEqual(health, expectedHealth(options));
      assert.equal(health.alerting.alerts.length, 2);
      assert.equal(health.lowBattery.count, 6);
    });

    test('REST GET /fleet/health answers the same figures in snake_case', async () => {
      for (const [query, options] of [
        ['', { days: 30, limit: 50, batteryBelow: batteryLowPercent }],
        ['?days=11&limit=2&battery_below=50', { days: 11, limit: 2, batteryBelow: 50 }],
      ] as const) {
        const response = await rest.get(`/fleet/health${query}`);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, { data: snakeKeys(expectedHealth(options)) });
      }
    });

    test('the alert type as an enum beside its REST spelling', async () => {
      const health = dataOf(await viewer.client.request('{ fleetHealth { alerting { alerts { tuid alertType type } } } }')).fleetHealth;
      const byType = {
        'battery low': 'BATTERY_LOW',
        'device connection lost': 'DEVICE_CONNECTION_LOST',
        'gateway connection lost': 'GATEWAY_CONNECTION_LOST',
      };
      for (const alert of health.alerting.alerts) assert.equal(alert.type, byType[alert.alertType as AlertType]);
    });

    test('bad arguments: BAD_USER_INPUT naming each argument; REST 400 naming its parameter', async () => {
      const bad: [Record<string, unknown>, string[]][] = [
        [{ days: 0 }, ['days']],
        [{ days: 91 }, ['days']],
        [{ limit: 0 }, ['limit']],
        [{ limit: 1001 }, ['limit']],
        [{ batteryBelow: 0 }, ['batteryBelow']],
        [{ batteryBelow: 101 }, ['batteryBelow']],
        [{ days: 0, limit: 0, batteryBelow: -1 }, ['days', 'limit', 'batteryBelow']],
      ];
      for (const [variables, fields] of bad) assertBadInput(await viewer.client.request(fleetHealthQuery, variables), fields);
      for (const [query, field] of [
        ['days=0', 'days'],
        ['days=91', 'days'],
        ['limit=0', 'limit'],
        ['battery_below=0', 'battery_below'],
        ['battery_below=101', 'battery_below'],
        ['battery_below=low', 'battery_below'],
        ['days=1.5', 'days'],
      ]) {
        const response = await rest.get(`/fleet/health?${query}`);
        assert.equal(response.status, 400, query);
        assert.deepEqual(
          response.body.errors.map((e: { field: string }) => e.field),
          [field],
          query,
        );
      }
      // The edges of each range are valid.
      assert.equal((await rest.get('/fleet/health?days=1&limit=1&battery_below=1')).status, 200);
      assert.equal((await rest.get('/fleet/health?days=90&limit=1000&battery_below=100')).status, 200);
    });

    test("another organization's fleet: only its own things, groups and alerts", async () => {
      const rivalViewer = await signInAs(server, 'Viewer', { organizationId: 'rival', organizationName: 'Rival' });
      const health = dataOf(await rivalViewer.client.request(fleetHealthQuery, { batteryBelow: 50 })).fleetHealth;
      assert.deepEqual(health.statusCounts, { total: 1, new: 0, installed: 1, uninstalled: 0, quarantine: 0, retired: 0 });
      assert.deepEqual(
        health.alerting.alerts.map((a: { tuid: string }) => a.tuid),
        ['RV-1'],
      );
      assert.deepEqual(
        health.silentGateways.gateways.map((g: { gatewayTuid: string }) => g.gatewayTuid),
        ['RGW-1'],
      );
      assert.deepEqual(health.lowBattery, { count: 1, things: [{ tuid: 'RV-1', batteryLevel: 16 }] });
      assert.deepEqual(
        health.groups.map((g: { groupId: string; thingCount: number; online: number }) => [g.groupId, g.thingCount, g.online]),
        [
          ['north', 1, 0],
          ['unassigned', 0, 0],
        ],
      );
    });

    describe('the alerting filter of the things list', () => {
      const alertingTuids = () => [...new Set(activePeriods().map((p) => p.tuid))].sort();
      const quietTuids = () => fleet.map((thing) => thing.tuid).filter((tuid) => !alertingTuids().includes(tuid));

      test('REST: alerting=true lists only things with an active alert, false only the others; cursor paging keeps the filter', async () => {
        for (const [flag, expected] of [
          ['true', alertingTuids()],
          ['false', quietTuids()],
        ] as const) {
          const seen: string[] = [];
          let cursor: string | null = null;
          do {
            const page: { status: number; body: { data: { things: { tuid: string }[]; next_cursor: string | null } } } = await rest.get(
              `/things?alerting=${flag}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
            );
            assert.equal(page.status, 200);
            assert.ok(page.body.data.things.length <= 2);
            seen.push(...page.body.data.things.map((thing) => thing.tuid));
            cursor = page.body.data.next_cursor;
          } while (cursor !== null);
          assert.deepEqual(seen, expected, `alerting=${flag}`);
        }
        // With the other filters.
        const north = await rest.get('/things?alerting=true&group_id=north');
        assert.deepEqual(
          north.body.data.things.map((thing: { tuid: string }) => thing.tuid),
          alertingTuids().filter((tuid) => fleet.find((thing) => thing.tuid === tuid)?.group === 'north'),
        );
        const bad = await rest.get('/things?alerting=maybe');
        assert.equal(bad.status, 400);
        assert.deepEqual(
          bad.body.errors.map((e: { field: string }) => e.field),
          ['alerting'],
        );
      });

      test('GraphQL: things(alerting:) pages with the filter', async () => {
        for (const [flag, expected] of [
          [true, alertingTuids()],
          [false, quietTuids()],
        ] as const) {
          const seen: string[] = [];
          let after: string | null = null;
          for (;;) {
            const page: { nodes: { tuid: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } = dataOf(
              await viewer.client.request(
                'query ($a: Boolean, $after: String) { things(alerting: $a, first: 3, after: $after) { nodes { tuid } pageInfo { hasNextPage endCursor } } }',
                { a: flag, after },
              ),
            ).things;
            seen.push(...page.nodes.map((node) => node.tuid));
            if (!page.pageInfo.hasNextPage) break;
            after = page.pageInfo.endCursor;
          }
          assert.deepEqual(seen, expected, `alerting: ${flag}`);
        }
        const all = dataOf(await viewer.client.request('{ things(first: 100) { nodes { tuid } } }')).things.nodes;
        assert.equal(all.length, fleet.length, 'without the filter every thing is listed');
      });
    });
  });
}
