/**
 * The studio's fleet overview (issue 14) in a real browser: its figures equal the API's `fleetHealth` answer for a
 * fleet seeded through MQTT uplinks and the GraphQL mutations, an alert opening arrives in the latest-alerts list
 * and refreshes the figures without a reload, a Viewer sees the same read-only page, and it reads at a phone's
 * width and in the dark theme.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { ManualClock } from '../../src/domain/clock.js';
import {
  browserSkipReason,
  ensureStudioBuilt,
  launchBrowser,
  openStudio,
  saveScreenshot,
  seriousAccessibilityViolations,
  signInThroughForm,
} from '../helpers/browser.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { dataOf, signInAs } from '../helpers/graphql-users.js';
import { closeMqttClients } from '../helpers/mqtt-clients.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

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

interface Health {
  batteryBelow: number;
  statusCounts: Record<string, number>;
  alerting: { thingCount: number; alertCount: number; alerts: { tuid: string; alertType: string }[] };
  silentGateways: { count: number; gateways: { gatewayTuid: string; thingCount: number }[] };
  lowBattery: { count: number; things: { tuid: string; batteryLevel: number }[] };
  groups: {
    groupId: string;
    thingCount: number;
    installed: number;
    online: number;
    onlineShare: number | null;
    uptime: number | null;
    battery: { bucket: string; count: number }[];
  }[];
}

const bucketLabels: Record<string, string> = {
  unknown: 'no level reported',
  '0-14': '0–14 %',
  '15-29': '15–29 %',
  '30-49': '30–49 %',
  '50-79': '50–79 %',
  '80-100': '80–100 %',
};

const text = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
/** A share shown as "66.7 %", as a number from 0 to 1 (null for the dash). */
const shownShare = (shown: string) => (shown.startsWith('—') ? null : Number(shown.split(' ')[0]!.replace(',', '.')) / 100);
const section = (page: Page, name: string | RegExp) => page.getByRole('region', { name });

/** Asserts that every figure and list entry of the overview equals the API's answer. */
async function assertOverviewShows(page: Page, health: Health): Promise<void> {
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
    assert.match(await text(item), new RegExp(`^${alert.tuid} ${alert.alertType} since .*ago$`));
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

for (const target of storeTargets) {
  // The screenshots of the SQLite run carry the documented names; the PostgreSQL run's are suffixed.
  const shot = (name: string) => (target.name === 'sqlite' ? name : `${name}-${target.name}`);
  describe(`studio: fleet overview on ${target.name}`, { skip: browserSkipReason || target.skip }, () => {
    let server: TestApp;
    let browser: Browser;
    // The platform's clock, held still: the fleet is seeded two hours back, then the clock jumps to the present,
    // the things of GW-2 are heard again and the engine judges silence once. No timer can change a figure between
    // the page's read and the test's.
    const clock = new ManualClock(Date.now() - 2 * hour);

    const fleetHealth = async (): Promise<Health> => {
      const manager = await signInAs(server, 'Manager');
      return dataOf(await manager.client.request(fleetHealthQuery)).fleetHealth as Health;
    };

    before(async () => {
      await ensureStudioBuilt();
      server = await startTestApp({ DATABASE_URL: await target.createUrl() }, { clock });
      browser = await launchBrowser();

      for (const gateway of ['GW-1', 'GW-2'] as const) {
        const things = fleet.filter((thing) => thing.gateway === gateway);
        await publishUplinks(
          server,
          things.map((thing, index) =>
            thing.batl === null
              ? { tsmId: 1112, tsmEv: 10, tsmTs: Math.floor(clock.now() / 1000) + index, tsmTuid: thing.tuid, uptime: 5 }
              : { tsmId: 1110, tsmEv: 10, tsmTs: Math.floor(clock.now() / 1000) + index, tsmTuid: thing.tuid, batl: thing.batl },
          ),
          gateway,
        );
      }
      const manager = await signInAs(server, 'Manager');
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
        server,
        heard.map((thing) => ({ tsmId: 1112, tsmEv: 10, tsmTs: Math.floor(clock.now() / 1000), tsmTuid: thing.tuid, uptime: 7200 })),
        'GW-2',
      );
      await server.app.alertEngine.settled();
      await server.app.alertEngine.evaluateSilence();
      await server.app.alertEngine.settled();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
    });

    it("shows the API's fleetHealth figures: statuses linking to the filtered list, alerting things, silent gateways, low batteries, groups", async () => {
      const health = await fleetHealth();
      // The seed is not trivial: every part of the page has something to show.
      assert.ok(health.alerting.thingCount >= 3 && health.silentGateways.count === 1 && health.lowBattery.count === 3);
      assert.ok(health.groups.some((group) => group.onlineShare !== null && group.onlineShare > 0 && group.onlineShare < 1));

      const { context, page, pageErrors } = await openStudio(browser, server, { path: '/' });
      await signInThroughForm(page);
      await page.getByRole('heading', { level: 1, name: 'Fleet overview' }).waitFor();
      await section(page, 'Deployment groups').waitFor();
      await assertOverviewShows(page, health);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, shot('overview'));

      // A status figure opens the things list with that filter.
      await section(page, 'Things by installation status')
        .getByRole('link', { name: `${health.statusCounts.installed} installed`, exact: true })
        .click();
      await page.waitForURL(/\/studio\/things\?status=installed$/);
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('lists an alert opening live, newest first, and refreshes the figures without a reload', async () => {
      const { context, page, pageErrors } = await openStudio(browser, server, { path: '/studio/' });
      await signInThroughForm(page);
      const latest = section(page, 'Latest alerts');
      await latest.getByText('Waiting for alerts').waitFor();
      const before = await fleetHealth();

      // OV-05 (installed, silent behind GW-1) speaks again with a low battery: its connection alerts close, a battery
      // alert opens, all announced on the alerts subscription.
      await publishUplinks(
        server,
        [{ tsmId: 1110, tsmEv: 10, tsmTs: Math.floor(clock.now() / 1000) + 60, tsmTuid: 'OV-05', batl: 4 }],
        'GW-1',
      );
      await server.app.alertEngine.settled();
      const log = latest.getByRole('log');
      const opened = log.getByRole('listitem').filter({ hasText: 'OV-05' }).filter({ hasText: 'battery low' });
      await opened.waitFor();
      assert.match(await text(opened), /^opened OV-05 battery low from \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · /);
      const closed = log
        .getByRole('listitem')
        .filter({ hasText: 'OV-05' })
        .filter({ hasText: /^closed/ });
      await closed.first().waitFor();
      assert.match(await text(closed.first()), /^closed OV-05 (device|gateway) connection lost \S+ \S+ to \S+ \S+ · /);

      // Newest first: the engine closes what was heard, then opens the battery alert.
      assert.match(await text(log.getByRole('listitem').first()), /^opened OV-05 battery low/);

      const health = await fleetHealth();
      assert.equal(health.lowBattery.count, before.lowBattery.count + 1);
      // The figures follow: wait for the refreshed low-battery count, then every figure equals the API's again.
      await section(page, /^Battery below/)
        .locator('[data-figure="low-battery"]')
        .filter({ hasText: new RegExp(`^${health.lowBattery.count}$`) })
        .waitFor();
      await section(page, 'Alerting now')
        .getByRole('link', { name: new RegExp(`^${health.alerting.thingCount} things? alerting$`) })
        .waitFor();
      await assertOverviewShows(page, health);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, shot('overview-live'));

      // A burst of changes: OV-05's battery swings 16 times (each a period closing or opening), then OV-03's drops.
      // The list keeps the newest 20, and the figures end on the platform's final state.
      const t = Math.floor(clock.now() / 1000) + 120;
      for (let swing = 0; swing < 16; swing += 1) {
        await publishUplinks(
          server,
          [{ tsmId: 1110, tsmEv: 10, tsmTs: t + swing, tsmTuid: 'OV-05', batl: swing % 2 === 0 ? 90 : 4 }],
          'GW-1',
        );
      }
      await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: t + 20, tsmTuid: 'OV-03', batl: 3 }], 'GW-2');
      await server.app.alertEngine.settled();
      await log.getByRole('listitem').filter({ hasText: 'OV-03' }).waitFor();
      assert.match(await text(log.getByRole('listitem').first()), /^opened OV-03 battery low/);
      assert.equal(await log.getByRole('listitem').count(), 20);
      const final = await fleetHealth();
      await section(page, /^Battery below/)
        .locator('[data-figure="low-battery"]')
        .filter({ hasText: new RegExp(`^${final.lowBattery.count}$`) })
        .waitFor();
      await assertOverviewShows(page, final);
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('shows a Viewer the same figures, with no control, readable at a phone width and in the dark theme', async () => {
      const viewer = await signInAs(server, 'Viewer');
      const health = await fleetHealth();
      const { context, page, pageErrors } = await openStudio(browser, server, { path: '/', viewport: { width: 390, height: 844 } });
      await signInThroughForm(page, { email: viewer.email, organizationName: 'Acme', password: viewer.password });
      await section(page, 'Deployment groups').waitFor();
      await assertOverviewShows(page, health);
      // Read-only: nothing to press on the page itself (the header keeps its sign-out button).
      assert.equal(await page.getByRole('main').getByRole('button').count(), 0);
      assert.equal(await page.getByRole('main').getByRole('textbox').count(), 0);
      // Cards stack: nothing wider than the screen, at 390 and at 360 px.
      const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      assert.equal(await overflow(), 0);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, shot('overview-mobile'));
      await page.setViewportSize({ width: 360, height: 800 });
      assert.equal(await overflow(), 0);

      await page.emulateMedia({ colorScheme: 'dark' });
      await page.setViewportSize({ width: 1280, height: 900 });
      assert.equal(await page.evaluate<boolean>("matchMedia('(prefers-color-scheme: dark)').matches"), true);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, shot('overview-dark'));
      assert.deepEqual(pageErrors, []);
      await context.close();
    });
  });
}
