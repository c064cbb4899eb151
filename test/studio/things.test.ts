/**
 * The studio's things: the list (filters in the URL, cursor pages) shows what the API answers, and the thing page
 * grows live, offers only the allowed next statuses, assigns groups, draws charts from series, and shows no
 * control a Viewer's schema lacks. Data goes in through the real interfaces (MQTT uplinks, GraphQL).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { allowedNextStatuses } from '../../src/domain/installations/installation-state-machine.js';
import {
  browserSkipReason,
  ensureStudioBuilt,
  launchBrowser,
  openStudio,
  saveScreenshot,
  seriousAccessibilityViolations,
  signInThroughForm,
} from '../helpers/browser.js';
import { metric } from '../helpers/app-metrics.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import type { GraphqlClient } from '../helpers/graphql-client.js';
import { dataOf, signInAs } from '../helpers/graphql-users.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';

after(closeMqttClients);
after(cleanupStores);

const nowS = Math.floor(Date.now() / 1000);
const tuids = Array.from({ length: 120 }, (_, index) => `LST-${String(index).padStart(3, '0')}`);
const pageSize = 50;

interface ApiPage {
  nodes: { tuid: string }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}
const thingsQuery = `query P($after: String, $q: String, $groupId: String, $installationStatus: String, $alerting: Boolean) {
  things(first: ${pageSize}, after: $after, q: $q, groupId: $groupId, installationStatus: $installationStatus, alerting: $alerting) {
    nodes { tuid } pageInfo { hasNextPage endCursor }
  }
}`;

/** The TUIDs the list's table shows, in order. */
async function shownTuids(page: Page): Promise<string[]> {
  return page
    .getByRole('table', { name: /^Things/ })
    .locator('tbody tr td:first-child a')
    .allTextContents();
}

/**
 * Waits until the table shows exactly `expected` (the list loads after each URL change). Polled from here: the
 * page's CSP refuses the string evaluation a polling waitForFunction would need.
 */
async function waitForRows(page: Page, expected: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const shown = await shownTuids(page);
    if (JSON.stringify(shown) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) assert.deepEqual(shown, expected, 'the table shows what the API answers');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const target of storeTargets) {
  // The screenshots of the SQLite run carry the documented names; the PostgreSQL run's are suffixed.
  const shot = (name: string) => (target.name === 'sqlite' ? name : `${name}-${target.name}`);
  describe(`studio: things list and thing page on ${target.name}`, { skip: browserSkipReason || target.skip }, () => {
    let server: TestApp;
    let browser: Browser;
    let manager: GraphqlClient;
    let viewer: { email: string; password: string };
    const apiPage = async (variables: Record<string, unknown>): Promise<ApiPage> =>
      dataOf(await manager.request(thingsQuery, variables)).things;

    before(async () => {
      await ensureStudioBuilt();
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      browser = await launchBrowser();
      manager = (await signInAs(server, 'Manager')).client;
      viewer = await signInAs(server, 'Viewer');
      // 120 things heard through two gateways; every seventh reports a low battery (an alert opens on ingest).
      await publishUplinks(
        server,
        tuids.map((tuid, index) => ({ tsmId: 1110, tsmEv: 10, tsmTs: nowS - index * 60, tsmTuid: tuid, batl: index % 7 === 0 ? 5 : 90 })),
        'GW-A',
      );
      // A thing with readings every two hours over the last month, for the charts.
      await publishUplinks(
        server,
        Array.from({ length: 360 }, (_, index) => ({
          tsmId: 12100,
          tsmEv: 10,
          tsmTs: nowS - 1000 - index * 7200, // away from the windows' edges, which the page and the test take seconds apart
          tsmTuid: 'CHART-1',
          temp: 20 + Math.sin(index / 6) * 3,
        })),
        'GW-B',
      );
      for (const groupId of ['north', 'south']) {
        dataOf(await manager.request('mutation C($groupId: String!) { createGroup(groupId: $groupId) { groupId } }', { groupId }));
      }
      for (const tuid of tuids.slice(0, 30)) {
        dataOf(await manager.request('mutation A($tuid: ID!) { assignThingToGroup(tuid: $tuid, groupId: "north") { tuid } }', { tuid }));
      }
      for (const tuid of tuids.filter((_, index) => index % 3 === 0)) {
        dataOf(
          await manager.request('mutation S($tuid: ID!) { setInstallationStatus(tuid: $tuid, status: "installed") { tuid } }', { tuid }),
        );
      }
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
    });

    it('lists the page the API answers, filters by TUID, group, status and alerting in the URL, and pages back and forth', async () => {
      const { context, page, pageErrors } = await openStudio(browser, server, { path: '/studio/things' });
      await signInThroughForm(page);
      await page.waitForURL(/\/studio\/things$/);
      const first = await apiPage({});
      await waitForRows(
        page,
        first.nodes.map((node) => node.tuid),
      );
      assert.equal(first.nodes.length, pageSize);

      // Forward twice and back twice, each page the API's.
      const second = await apiPage({ after: first.pageInfo.endCursor });
      await page.getByRole('button', { name: 'Next page' }).click();
      await waitForRows(
        page,
        second.nodes.map((node) => node.tuid),
      );
      assert.match(page.url(), /after=/);
      const third = await apiPage({ after: second.pageInfo.endCursor });
      await page.getByRole('button', { name: 'Next page' }).click();
      await waitForRows(
        page,
        third.nodes.map((node) => node.tuid),
      );
      assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), !third.pageInfo.hasNextPage);
      await page.getByRole('button', { name: 'Previous page' }).click();
      await waitForRows(
        page,
        second.nodes.map((node) => node.tuid),
      );
      await page.getByRole('button', { name: 'Previous page' }).click();
      await waitForRows(
        page,
        first.nodes.map((node) => node.tuid),
      );
      assert.equal(await page.getByRole('button', { name: 'Previous page' }).isDisabled(), true);

      // Each row: its badge says alerting exactly when the API lists the thing as alerting.
      const alerting = new Set<string>(dataOf(await manager.request('{ alertingThings }')).alertingThings);
      assert.ok(alerting.size > 0, 'the seed raises battery alerts');
      const firstRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'LST-000', exact: true }) });
      assert.equal(await firstRow.getByText('alerting').count(), alerting.has('LST-000') ? 1 : 0);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, shot('things-list'));

      // Filters: each combination shows the API's answer for it, and stays in the URL.
      await page.getByLabel('Group').selectOption('north');
      await page.waitForURL(/group=north/);
      await waitForRows(
        page,
        (await apiPage({ groupId: 'north' })).nodes.map((node) => node.tuid),
      );
      await page.getByLabel('Installation status').selectOption('installed');
      await page.waitForURL(/status=installed/);
      const northInstalled = await apiPage({ groupId: 'north', installationStatus: 'installed' });
      assert.ok(northInstalled.nodes.length > 0 && northInstalled.nodes.length < 30);
      await waitForRows(
        page,
        northInstalled.nodes.map((node) => node.tuid),
      );
      await page.getByLabel('Alerting').selectOption('true');
      await page.waitForURL(/alerting=true/);
      const northInstalledAlerting = await apiPage({ groupId: 'north', installationStatus: 'installed', alerting: true });
      assert.ok(northInstalledAlerting.nodes.length > 0);
      await waitForRows(
        page,
        northInstalledAlerting.nodes.map((node) => node.tuid),
      );
      for (const tuid of northInstalledAlerting.nodes.map((node) => node.tuid)) assert.ok(alerting.has(tuid));

      await page.getByLabel('Group').selectOption('');
      await page.getByLabel('Installation status').selectOption('');
      await page.getByLabel('Alerting').selectOption('');
      await page.getByLabel('TUID contains').fill('lst-11');
      await page.waitForURL(/q=lst-11/);
      const searched = await apiPage({ q: 'lst-11' });
      assert.deepEqual(
        searched.nodes.map((node) => node.tuid),
        tuids.filter((tuid) => tuid.startsWith('LST-11')),
      );
      await waitForRows(
        page,
        searched.nodes.map((node) => node.tuid),
      );

      // The URL alone restores the filters (a shared link, a reload).
      await page.goto('/studio/things?alerting=false&status=installed');
      await waitForRows(
        page,
        (await apiPage({ alerting: false, installationStatus: 'installed' })).nodes.map((node) => node.tuid),
      );
      assert.equal(await page.getByLabel('Alerting').inputValue(), 'false');
      assert.deepEqual(
        await shownTuids(page),
        (await apiPage({ alerting: false, installationStatus: 'installed' })).nodes.map((n) => n.tuid),
      );
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('thing page: a live uplink joins the messages table; only allowed next statuses are offered; group assignment', async () => {
      const { context, page, pageErrors } = await openStudio(browser, server, { path: '/studio/things/LST-001' });
      await signInThroughForm(page);
      await page.getByRole('heading', { name: 'Summary' }).waitFor();
      const messages = page.getByRole('table', { name: 'Messages of LST-001, newest first' });
      await messages.locator('tbody tr').first().waitFor();
      const before = await messages.locator('tbody tr').count();
      assert.equal(before, dataOf(await manager.request('{ messages(tuid: "LST-001", limit: 100) }')).messages.length);

      // Published over MQTT while the page is open (once its live subscription is held): it appears without a reload.
      while ((await metric(server, 'thingdesk_graphql_live_subscriptions')) < 1) await new Promise((resolve) => setTimeout(resolve, 50));
      const url = page.url();
      await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: nowS + 5, tsmTuid: 'LST-001', batl: 77 }], 'GW-LIVE');
      await messages.locator('tbody tr').filter({ hasText: 'batl: 77' }).waitFor();
      assert.equal(await messages.locator('tbody tr').count(), before + 1);
      assert.equal(page.url(), url);

      // LST-001 is new: the select offers what the API says may follow, which is the state machine's table.
      const statusSelect = page.getByLabel('Next installation status');
      const offered = async () =>
        (await statusSelect.locator('option:not([disabled])').allTextContents()).map((text) => text.trim()).sort();
      const apiNext = async () =>
        dataOf(await manager.request('{ thing(tuid: "LST-001") { nextInstallationStatuses } }')).thing.nextInstallationStatuses as string[];
      assert.deepEqual(await offered(), [...(await apiNext())].sort());
      assert.deepEqual(await offered(), [...allowedNextStatuses('new')].sort());
      await statusSelect.selectOption('quarantine');
      await page.getByRole('button', { name: 'Set status' }).click();
      await page.getByRole('status').filter({ hasText: 'Status set to quarantine.' }).waitFor();
      assert.equal(
        dataOf(await manager.request('{ thing(tuid: "LST-001") { installationStatus } }')).thing.installationStatus,
        'quarantine',
      );
      await statusSelect.locator('option[value="quarantine"]').waitFor({ state: 'detached' });
      assert.deepEqual(await offered(), [...(await apiNext())].sort());

      // Group assignment from the organization's groups. A live message reloads the thing meanwhile: the choice
      // stays (it once went back to the thing's group, leaving the button disabled).
      const groupSelect = page.getByLabel('Group', { exact: true });
      await groupSelect.selectOption('south');
      const reloaded = page.waitForResponse((response) => response.request().postData()?.includes('query StudioThing(') === true);
      await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: nowS + 6, tsmTuid: 'LST-001', batl: 76 }], 'GW-LIVE');
      await reloaded;
      await messages.locator('tbody tr').filter({ hasText: 'batl: 76' }).waitFor();
      assert.equal(await groupSelect.inputValue(), 'south');
      await page.getByRole('button', { name: 'Assign to group' }).click();
      await page.getByRole('status').filter({ hasText: 'Now in south.' }).waitFor();
      assert.equal(dataOf(await manager.request('{ thing(tuid: "LST-001") { groupId } }')).thing.groupId, 'south');

      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, shot('thing-page'));
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('thing page: a chart per numeric field of the chosen message id, with the points series answers', async () => {
      const { context, page, pageErrors } = await openStudio(browser, server, {
        path: '/studio/things/CHART-1',
        viewport: { width: 390, height: 844 },
      });
      await signInThroughForm(page);
      const chart = page.getByRole('figure', { name: /^temp/ });
      await chart.locator('canvas').waitFor();
      await page.locator('figure[data-field="temp"][data-render-ms]').waitFor();
      const apiPoints = async (days: number) => {
        const to = Math.floor(Date.now() / 1000);
        const series = await manager.request(
          'query S($from: Int!, $to: Int!) { series(tuid: "CHART-1", tsmId: 12100, field: "temp", from: $from, to: $to, maxPoints: 1000) { points { t } } }',
          { from: to - days * 86_400, to },
        );
        return dataOf(series).series.points.length as number;
      };
      const shownPoints = Number(await chart.getAttribute('data-points'));
      assert.ok(shownPoints > 0);
      assert.equal(shownPoints, await apiPoints(7));
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, shot('thing-page-mobile'));

      // The month: the chart reads again; the time it took is printed (bench figures), not asserted.
      await page.getByRole('button', { name: 'Last 30 days' }).click();
      assert.equal(await page.getByRole('button', { name: 'Last 30 days' }).getAttribute('aria-pressed'), 'true');
      await page.locator(`figure[data-field="temp"]:not([data-points="${shownPoints}"])`).waitFor();
      await page.locator('figure[data-field="temp"][data-render-ms]').waitFor();
      assert.equal(Number(await chart.getAttribute('data-points')), await apiPoints(30));
      console.log(`# month chart: ${await chart.getAttribute('data-points')} points in ${await chart.getAttribute('data-render-ms')} ms`);
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('a Viewer sees the thing page without status or group controls; axe passes it in the dark theme', async () => {
      const { context, page, pageErrors } = await openStudio(browser, server, { path: '/studio/things/LST-002' });
      await signInThroughForm(page, { email: viewer.email, organizationName: 'Acme', password: viewer.password });
      await page.getByRole('heading', { name: 'Summary' }).waitFor();
      await page
        .getByRole('table', { name: /^Messages of LST-002/ })
        .locator('tbody tr')
        .first()
        .waitFor();
      assert.equal(await page.getByLabel('Next installation status').count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Set status' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Assign to group' }).count(), 0);
      assert.equal(await page.getByRole('heading', { name: 'Installation and group' }).count(), 0);
      await saveScreenshot(page, shot('thing-page-viewer'));
      // The dark theme (the system's setting) keeps every text readable.
      await page.emulateMedia({ colorScheme: 'dark' });
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, shot('thing-page-dark'));
      assert.deepEqual(pageErrors, []);
      await context.close();
    });
  });
}

describe('studio: the thing page maps its location with MAP_TILE_URL', { skip: browserSkipReason }, () => {
  let server: TestApp;
  let browser: Browser;
  let tiles: Server;
  const tileRequests: string[] = [];
  // A 1 x 1 PNG: the tile server is local, as a deployment's own would be; nothing is fetched from the internet.
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

  before(async () => {
    await ensureStudioBuilt();
    tiles = createServer((request, response) => {
      tileRequests.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'image/png' }).end(png);
    });
    await new Promise<void>((resolve) => tiles.listen(0, '127.0.0.1', resolve));
    const { port } = tiles.address() as AddressInfo;
    server = await startTestApp({ MAP_TILE_URL: `http://127.0.0.1:${port}/{z}/{x}/{y}.png` });
    browser = await launchBrowser();
    await publishUplinks(server, [{ tsmId: 1210, tsmEv: 10, tsmTs: nowS, tsmTuid: 'MAP-1', lat: 60.1699, lon: 24.9384, lacr: 10 }]);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((resolve) => tiles?.close(resolve));
  });

  it('loads Leaflet with the page, draws the tiles of the position and names the coordinates', async () => {
    const { context, page, pageErrors } = await openStudio(browser, server, { path: '/studio/things/MAP-1' });
    await signInThroughForm(page);
    const map = page.getByRole('region', { name: "Map of the thing's location" });
    await map.locator('img.leaflet-tile-loaded').first().waitFor();
    assert.ok(
      tileRequests.some((path) => path.startsWith('/15/')),
      tileRequests.join(', '),
    );
    const location = page.getByRole('region', { name: 'Location', exact: true });
    assert.match((await location.textContent()) ?? '', /60[.,]1699.*24[.,]9384/);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'thing-page-map');
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
