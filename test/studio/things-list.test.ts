/** The studio's things list shows the pages the API answers: filters kept in the URL, cursor pages back and forth. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { browserStoreTargets } from '../helpers/databases.js';
import { dataOf } from '../helpers/graphql-users.js';
import { screenshotNames } from './studio-test-helpers.js';
import { tuids, useSeededThings } from './things-helpers.js';

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
    .locator('tbody tr td.tuid a')
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

for (const target of browserStoreTargets) {
  const shot = screenshotNames(target);
  describe(`studio: things list and thing page on ${target.name}`, { skip: browserSkipReason || target.skip }, () => {
    const setup = useSeededThings(target);
    const { studio } = setup;
    const apiPage = async (variables: Record<string, unknown>): Promise<ApiPage> =>
      dataOf(await setup.manager.request(thingsQuery, variables)).things;

    it('lists the page the API answers, filters by TUID, group, status and alerting in the URL, and pages back and forth', async () => {
      const { context, page, pageErrors } = await studio.open({ path: '/studio/things' });
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
      const alerting = new Set<string>(dataOf(await setup.manager.request('{ alertingThings }')).alertingThings);
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
  });
}
