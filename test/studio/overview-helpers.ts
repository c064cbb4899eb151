/**
 * What the fleet overview's tests share: a fleet seeded through MQTT uplinks and the GraphQL mutations, the API's
 * `fleetHealth` answer for it, and the assertion that the page shows every figure of that answer.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { ManualClock } from '../../src/domain/clock.js';
import type { GroupHealth } from '../../studio/src/components/overview/fleet-health.js';
import type { StoreTarget } from '../helpers/databases.js';
import { dataOf, signInAs } from '../helpers/graphql-users.js';
import { closeMqttClients } from '../helpers/mqtt-clients.js';
import { publishUplinks } from '../helpers/uplinks.js';
import { useStudio, type Studio } from './studio-test-helpers.js';

const hour = 3_600_000;

interface SeededThing {
  tuid: string;
  /** null: reports no battery level. */
  batl: number | null;
  status: 'new' | 'installed' | 'uninstalled' | 'quarantine' | 'retired';
  group: string | null;
  /** The gateway it is heard through; things of GW-2 are heard again at the end, GW-1 goes silent. */
  gateway: 'GW-1' | 'GW-2';
}

// Every status, two groups and none, batteries in every bucket and below the threshold (15 %).
const fleet: SeededThing[] = [
  { tuid: 'OV-01', batl: 90, status: 'installed', group: 'north', gateway: 'GW-1' },
  { tuid: 'OV-02', batl: 8, status: 'installed', group: 'north', gateway: 'GW-1' },
  { tuid: 'OV-03', batl: 45, status: 'installed', group: 'north', gateway: 'GW-2' },
  { tuid: 'OV-04', batl: 25, status: 'installed', group: 'south', gateway: 'GW-2' },
  { tuid: 'OV-05', batl: 60, status: 'installed', group: 'south', gateway: 'GW-1' },
  { tuid: 'OV-06', batl: 12, status: 'installed', group: null, gateway: 'GW-2' },
  { tuid: 'OV-07', batl: 70, status: 'new', group: null, gateway: 'GW-2' },
  { tuid: 'OV-08', batl: 85, status: 'uninstalled', group: 'north', gateway: 'GW-1' },
  { tuid: 'OV-09', batl: 5, status: 'quarantine', group: null, gateway: 'GW-1' },
  { tuid: 'OV-10', batl: 55, status: 'retired', group: 'south', gateway: 'GW-2' },
  { tuid: 'OV-11', batl: null, status: 'installed', group: 'south', gateway: 'GW-2' },
];

/** The query the page runs (30 days, 10 per list), asked by the test to compare. */
const fleetHealthQuery = `{
  fleetHealth(days: 30, limit: 10) {
    batteryBelow
    statusCounts { total new installed uninstalled quarantine retired }
    alerting { thingCount alertCount alerts { tuid alertType } }
    silentGateways { count gateways { gatewayTuid thingCount } }
    lowBattery { count things { tuid batteryLevel } }
    groups { groupId thingCount installed online onlineShare uptime battery { bucket count } }
  }
}`;

export interface Health {
  batteryBelow: number;
  statusCounts: Record<string, number>;
  alerting: { thingCount: number; alertCount: number; alerts: { tuid: string; alertType: string }[] };
  silentGateways: { count: number; gateways: { gatewayTuid: string; thingCount: number }[] };
  lowBattery: { count: number; things: { tuid: string; batteryLevel: number }[] };
  groups: GroupHealth[];
}

const bucketLabels: Record<string, string> = {
  unknown: 'no level reported',
  '0-14': '0–14 %',
  '15-29': '15–29 %',
  '30-49': '30–49 %',
  '50-79': '50–79 %',
  '80-100': '80–100 %',
};

export const text = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
/** A share shown as "66.7 %", as a number from 0 to 1 (null for the dash). */
const shownShare = (shown: string) => (shown.startsWith('—') ? null : Number(shown.split(' ')[0]!.replace(',', '.')) / 100);
export const section = (page: Page, name: string | RegExp) => page.getByRole('region', { name });

/** Asserts that every figure and list entry of the overview equals the API's answer. */
export async function assertOverviewShows(page: Page, health: Health): Promise<void> {
  const statuses = section(page, 'Things by installation status');
  const total = statuses.getByRole('link', { name: `${health.statusCounts.total} things in all` });
  assert.match((await total.getAttribute('href')) ?? '', /\/studio\/things$/);
  const labels = { installed: 'installed', new: 'new', uninstalled: 'uninstalled', quarantine: 'in quarantine', retired: 'retired' };
  for (const [status, label] of Object.entries(labels)) {
    const link = statuses.getByRole('link', { name: `${health.statusCounts[status]} ${label}`, exact: true });
    assert.equal(await link.getAttribute('href'), `/studio/things?status=${status}`, status);
  }

  const alerting = section(page, 'Alerting now');
  const alertingLink = alerting.getByRole('link', { name: new RegExp(`^${health.alerting.thingCount} things? alerting$`) });
  assert.equal(await alertingLink.getAttribute('href'), '/studio/things?alerting=true');
  assert.match(await text(alerting), new RegExp(`\\(${health.alerting.alertCount} active alerts?\\)`));
  const alertItems = alerting.getByRole('listitem');
  assert.equal(await alertItems.count(), health.alerting.alerts.length);
  for (const [index, alert] of health.alerting.alerts.entries()) {
    const item = alertItems.nth(index);
    assert.equal(await item.getByRole('link').getAttribute('href'), `/studio/things/${alert.tuid}`);
    assert.match(await text(item), new RegExp(`^${alert.tuid} ${alert.alertType} since .*(ago|just now)$`));
  }

  const silent = section(page, 'Silent gateways');
  assert.equal(await text(silent.locator('[data-figure="silent-gateways"]')), String(health.silentGateways.count));
  const gatewayItems = silent.getByRole('listitem');
  assert.deepEqual(
    await silent.locator('li .mono').allTextContents(),
    health.silentGateways.gateways.map((gateway) => gateway.gatewayTuid),
  );
  assert.equal(await gatewayItems.count(), health.silentGateways.gateways.length);

  const battery = section(page, `Battery below ${health.batteryBelow} %`);
  assert.equal(await text(battery.locator('[data-figure="low-battery"]')), String(health.lowBattery.count));
  const batteryItems = battery.getByRole('listitem');
  assert.equal(await batteryItems.count(), health.lowBattery.things.length);
  for (const [index, thing] of health.lowBattery.things.entries()) {
    assert.equal(await text(batteryItems.nth(index)), `${thing.tuid} ${thing.batteryLevel} %`);
  }

  const groups = section(page, 'Deployment groups');
  assert.equal(await groups.locator('[data-group]').count(), health.groups.length);
  for (const group of health.groups) {
    const card = groups.locator(`[data-group="${group.groupId}"]`);
    assert.equal(await text(card.locator('[data-figure="installed"]')), `${group.installed} of ${group.thingCount}`, group.groupId);
    const online = await text(card.locator('[data-figure="online"]'));
    assert.match(online, new RegExp(`\\(${group.online}\\)$`), group.groupId);
    assertShare(shownShare(online), group.onlineShare, `${group.groupId} online`);
    assertShare(shownShare(await text(card.locator('[data-figure="uptime"]'))), group.uptime, `${group.groupId} uptime`);
    // The battery bar's text equivalent: one row per bucket, as screen readers read it.
    const name = group.groupId === 'unassigned' ? 'Not in a group' : group.groupId;
    const table = card.getByRole('table', { name: `Battery of the installed things in ${name}` });
    const buckets = await table.locator('tbody th').allTextContents();
    const counts = (await table.locator('tbody td').allTextContents()).map(Number);
    assert.deepEqual(
      buckets.map((bucket, index) => [bucket, counts[index]]),
      group.battery.map((bucket) => [bucketLabels[bucket.bucket], bucket.count]),
      `${group.groupId} battery`,
    );
  }
}

/** A share as the page rounds it (one decimal of a percent). */
function assertShare(shown: number | null, answered: number | null, what: string): void {
  if (answered === null) return assert.equal(shown, null, what);
  assert.ok(shown !== null && Math.abs(shown - answered) <= 0.0005 + 1e-9, `${what}: shown ${shown}, API ${answered}`);
}

export interface OverviewStudio {
  studio: Studio;
  clock: ManualClock;
  /** The API's answer to the query the page runs, asked by a Manager. */
  fleetHealth(): Promise<Health>;
}

/** Registers, inside a describe, the studio on `target` with the fleet seeded before the first test. */
export function useSeededFleet(target: StoreTarget): OverviewStudio {
  // The platform's clock, held still: the fleet is seeded two hours back, then the clock jumps to the present,
  // the things of GW-2 are heard again and the engine judges silence once. No timer can change a figure between
  // the page's read and the test's.
  const clock = new ManualClock(Date.now() - 2 * hour);
  const studio = useStudio({ store: target, clock });
  after(closeMqttClients);

  before(async () => {
    for (const gateway of ['GW-1', 'GW-2'] as const) {
      const things = fleet.filter((thing) => thing.gateway === gateway);
      await publishUplinks(
        studio.server,
        things.map((thing, index) =>
          thing.batl === null
            ? { tsmId: 1112, tsmEv: 10, tsmTs: Math.floor(clock.now() / 1000) + index, tsmTuid: thing.tuid, uptime: 5 }
            : { tsmId: 1110, tsmEv: 10, tsmTs: Math.floor(clock.now() / 1000) + index, tsmTuid: thing.tuid, batl: thing.batl },
        ),
        gateway,
      );
    }
    const manager = await signInAs(studio.server, 'Manager');
    for (const groupId of ['north', 'south'])
      dataOf(await manager.client.request(`mutation { createGroup(groupId: "${groupId}") { groupId } }`));
    const setStatus = (tuid: string, status: string) =>
      manager.client.request('mutation ($tuid: ID!, $status: String!) { setInstallationStatus(tuid: $tuid, status: $status) { tuid } }', {
        tuid,
        status,
      });
    for (const thing of fleet) {
      if (thing.status === 'uninstalled') dataOf(await setStatus(thing.tuid, 'installed'));
      if (thing.status !== 'new') dataOf(await setStatus(thing.tuid, thing.status));
      if (thing.group) {
        dataOf(
          await manager.client.request(
            'mutation ($tuid: ID!, $groupId: String!) { assignThingToGroup(tuid: $tuid, groupId: $groupId) { tuid } }',
            {
              tuid: thing.tuid,
              groupId: thing.group,
            },
          ),
        );
      }
    }

    clock.set(Date.now());
    const heard = fleet.filter((thing) => thing.gateway === 'GW-2');
    await publishUplinks(
      studio.server,
      heard.map((thing) => ({ tsmId: 1112, tsmEv: 10, tsmTs: Math.floor(clock.now() / 1000), tsmTuid: thing.tuid, uptime: 7200 })),
      'GW-2',
    );
    await studio.server.app.alertEngine.settled();
    await studio.server.app.alertEngine.evaluateSilence();
    await studio.server.app.alertEngine.settled();
  });
  return {
    studio,
    clock,
    fleetHealth: async () => {
      const manager = await signInAs(studio.server, 'Manager');
      return dataOf(await manager.client.request(fleetHealthQuery)).fleetHealth as Health;
    },
  };
}
