/** What the fleet overview tests share: the seeded fleet and alert periods, and a server holding them beside a rival organization's. */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { AlertType } from '../../src/domain/alerts/alert-types.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createApiClient, createMqttCredential, createOrganization } from '../../src/domain/identity/identity-service.js';
import type { InstallationStatus } from '../../src/domain/things/thing-types.js';
import type { StoreTarget } from '../helpers/databases.js';
import { signInAs, type SignedInUser } from '../helpers/graphql-users.js';
import { connectMqtt } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { publishUplinks } from '../helpers/uplinks.js';

export const now = Date.UTC(2026, 2, 30, 12, 0, 0);
const minute = 60_000;
const hour = 60 * minute;
export const day = 24 * hour;
export const zone = 'Europe/Helsinki';
export const batteryLowPercent = 15;

interface SeededThing {
  tuid: string;
  /** null: never reports a battery level (claimed through REST, never heard). */
  batl: number | null;
  status: InstallationStatus;
  group: string | null;
}

// Levels on both sides of every bucket bound and of the low threshold; every status; two groups and none.
export const fleet: SeededThing[] = [
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
export const groupIds = ['north', 'south', 'spare'];

export interface SeededPeriod {
  tuid: string;
  type: AlertType;
  gateway?: string;
  openedAt: number;
  closedAt: number | null;
}

// Connection periods written by hand (the engine's own writes are tested in test/domain/alerts/). The alert engine
// adds `battery low` on ingest for the levels below BATTERY_LOW_PERCENT, at arrival (now).
export const periods: SeededPeriod[] = [
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

/** Every active period: the hand-written ones and the engine's battery alerts, as the store will hold them. */
export function activePeriods(): SeededPeriod[] {
  const battery = fleet
    .filter((thing) => thing.batl !== null && thing.batl < batteryLowPercent)
    .map((thing): SeededPeriod => ({ tuid: thing.tuid, type: 'battery low', openedAt: now, closedAt: null }));
  return [...periods.filter((p) => p.closedAt === null), ...battery];
}

export interface FleetHealthContext {
  server: TestApp;
  rest: RestClient;
  /** A Viewer of Acme, signed in to GraphQL. */
  viewer: SignedInUser;
}

/** Registers, inside a describe, a fresh server on the target seeded with the fleet; the context is filled before the first test. */
export function fleetHealthTestServer(target: StoreTarget): FleetHealthContext {
  const context = {} as FleetHealthContext;
  before(async () => {
    const server = await startTestApp(
      // The engine's timer would judge the hand-written periods against the seeded arrivals; only ingest runs.
      { DATABASE_URL: await target.createUrl(), ALERT_TIMEZONE: zone, ALERT_INTERVAL_S: '86400' },
      { clock: new ManualClock(now) },
    );
    const rest = new RestClient(server);
    Object.assign(context, { server, rest });
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

    context.viewer = await signInAs(server, 'Viewer');
  });
  after(() => context.server?.stop());
  return context;
}
