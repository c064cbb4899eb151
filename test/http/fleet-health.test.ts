/**
 * The fleet overview (issue 14): GraphQL `fleetHealth` and REST `GET /fleet/health` answer the same figures, and
 * every figure equals what this file computes from the things, statuses, groups and alert periods of
 * fleet-health-helpers.ts. Both stores.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { AlertType } from '../../src/domain/alerts/alert-types.js';
import { formatLocalDateTime } from '../../src/domain/alerts/local-time.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { assertBadInput, dataOf, signInAs } from '../helpers/graphql-users.js';
import { closeMqttClients } from '../helpers/mqtt-clients.js';
import {
  activePeriods,
  batteryLowPercent,
  day,
  fleet,
  fleetHealthTestServer,
  groupIds,
  now,
  periods,
  zone,
} from './fleet-health-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const connectionTypes: readonly AlertType[] = ['device connection lost', 'gateway connection lost'];
const shown = (group: string | null) => group ?? 'unassigned';
const bucketOf = (level: number | null) =>
  level === null ? 'unknown' : level < 15 ? '0-14' : level < 30 ? '15-29' : level < 50 ? '30-49' : level < 80 ? '50-79' : '80-100';
const buckets = ['unknown', '0-14', '15-29', '30-49', '50-79', '80-100'];

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
    const context = fleetHealthTestServer(target);

    test('a Viewer reads fleetHealth: every figure as the seeded things and alert periods imply (defaults: 30 days, 50, BATTERY_LOW_PERCENT)', async () => {
      const health = dataOf(await context.viewer.client.request(fleetHealthQuery)).fleetHealth;
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
      const health = dataOf(await context.viewer.client.request(fleetHealthQuery, options)).fleetHealth;
      assert.deepEqual(health, expectedHealth(options));
      assert.equal(health.alerting.alerts.length, 2);
      assert.equal(health.lowBattery.count, 6);
    });

    test('REST GET /fleet/health answers the same figures in snake_case', async () => {
      for (const [query, options] of [
        ['', { days: 30, limit: 50, batteryBelow: batteryLowPercent }],
        ['?days=11&limit=2&battery_below=50', { days: 11, limit: 2, batteryBelow: 50 }],
      ] as const) {
        const response = await context.rest.get(`/fleet/health${query}`);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, { data: snakeKeys(expectedHealth(options)) });
      }
    });

    test('the alert type as an enum beside its REST spelling', async () => {
      const health = dataOf(
        await context.viewer.client.request('{ fleetHealth { alerting { alerts { tuid alertType type } } } }'),
      ).fleetHealth;
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
      for (const [variables, fields] of bad) assertBadInput(await context.viewer.client.request(fleetHealthQuery, variables), fields);
      for (const [query, field] of [
        ['days=0', 'days'],
        ['days=91', 'days'],
        ['limit=0', 'limit'],
        ['battery_below=0', 'battery_below'],
        ['battery_below=101', 'battery_below'],
        ['battery_below=low', 'battery_below'],
        ['days=1.5', 'days'],
      ]) {
        const response = await context.rest.get(`/fleet/health?${query}`);
        assert.equal(response.status, 400, query);
        assert.deepEqual(
          response.body.errors.map((e: { field: string }) => e.field),
          [field],
          query,
        );
      }
      // The edges of each range are valid.
      assert.equal((await context.rest.get('/fleet/health?days=1&limit=1&battery_below=1')).status, 200);
      assert.equal((await context.rest.get('/fleet/health?days=90&limit=1000&battery_below=100')).status, 200);
    });

    test("another organization's fleet: only its own things, groups and alerts", async () => {
      const rivalViewer = await signInAs(context.server, 'Viewer', { organizationId: 'rival', organizationName: 'Rival' });
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
  });
}
