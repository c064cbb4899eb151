/**
 * The studio's thing page: it grows live, offers only the allowed next statuses, assigns groups, draws charts from
 * series, and shows no control a Viewer's schema lacks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowedNextStatuses } from '../../src/domain/installations/installation-state-machine.js';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { metric } from '../helpers/app-metrics.js';
import { browserStoreTargets } from '../helpers/databases.js';
import { dataOf } from '../helpers/graphql-users.js';
import { publishUplinks } from '../helpers/uplinks.js';
import { screenshotNames } from './studio-test-helpers.js';
import { nowS, useSeededThings } from './things-helpers.js';

for (const target of browserStoreTargets) {
  const shot = screenshotNames(target);
  describe(`studio: things list and thing page on ${target.name}`, { skip: browserSkipReason || target.skip }, () => {
    const setup = useSeededThings(target);
    const { studio } = setup;

    it('thing page: a live uplink joins the messages table; only allowed next statuses are offered; group assignment', async () => {
      const { context, page, pageErrors } = await studio.open({ path: '/studio/things/LST-001' });
      await signInThroughForm(page);
      await page.getByRole('heading', { name: 'Summary' }).waitFor();
      const messages = page.getByRole('table', { name: 'Messages of LST-001, newest first' });
      await messages.locator('tbody tr').first().waitFor();
      const before = await messages.locator('tbody tr').count();
      assert.equal(before, dataOf(await setup.manager.request('{ messages(tuid: "LST-001", limit: 100) }')).messages.length);

      // Published over MQTT while the page is open (once its live subscription is held): it appears without a reload.
      while ((await metric(studio.server, 'thingdesk_graphql_live_subscriptions')) < 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const url = page.url();
      await publishUplinks(studio.server, [{ tsmId: 1110, tsmEv: 10, tsmTs: nowS + 5, tsmTuid: 'LST-001', batl: 77 }], 'GW-LIVE');
      await messages.locator('tbody tr').filter({ hasText: 'Battery level in percent: 77 %' }).waitFor();
      assert.equal(await messages.locator('tbody tr').count(), before + 1);
      assert.equal(page.url(), url);

      // LST-001 is new: the select offers what the API says may follow, which is the state machine's table.
      const statusSelect = page.getByLabel('Next installation status');
      const offered = async () =>
        (await statusSelect.locator('option:not([disabled])').allTextContents()).map((text) => text.trim()).sort();
      const apiNext = async () =>
        dataOf(await setup.manager.request('{ thing(tuid: "LST-001") { nextInstallationStatuses } }')).thing
          .nextInstallationStatuses as string[];
      assert.deepEqual(await offered(), [...(await apiNext())].sort());
      assert.deepEqual(await offered(), [...allowedNextStatuses('new')].sort());
      await statusSelect.selectOption('quarantine');
      await page.getByRole('button', { name: 'Set status' }).click();
      await page.getByRole('status').filter({ hasText: 'Status set to quarantine.' }).waitFor();
      assert.equal(
        dataOf(await setup.manager.request('{ thing(tuid: "LST-001") { installationStatus } }')).thing.installationStatus,
        'quarantine',
      );
      await statusSelect.locator('option[value="quarantine"]').waitFor({ state: 'detached' });
      assert.deepEqual(await offered(), [...(await apiNext())].sort());

      // Group assignment from the organization's groups. A live message reloads the thing meanwhile: the choice
      // stays (it once went back to the thing's group, leaving the button disabled).
      const groupSelect = page.getByLabel('Group', { exact: true });
      await groupSelect.selectOption('south');
      const reloaded = page.waitForResponse((response) => response.request().postData()?.includes('query StudioThing(') === true);
      await publishUplinks(studio.server, [{ tsmId: 1110, tsmEv: 10, tsmTs: nowS + 6, tsmTuid: 'LST-001', batl: 76 }], 'GW-LIVE');
      await reloaded;
      await messages.locator('tbody tr').filter({ hasText: 'Battery level in percent: 76 %' }).waitFor();
      assert.equal(await groupSelect.inputValue(), 'south');
      await page.getByRole('button', { name: 'Assign to group' }).click();
      await page.getByRole('status').filter({ hasText: 'Now in south.' }).waitFor();
      assert.equal(dataOf(await setup.manager.request('{ thing(tuid: "LST-001") { groupId } }')).thing.groupId, 'south');

      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, shot('thing-page'));
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('thing page: a chart per numeric field of the chosen message id, with the points series answers', async () => {
      const { context, page, pageErrors } = await studio.open({
        path: '/studio/things/CHART-1',
        viewport: { width: 390, height: 844 },
      });
      await signInThroughForm(page);
      const chart = page.getByRole('figure', { name: /^Temperature \(°C\)/ });
      await chart.locator('canvas').waitFor();
      await page.locator('figure[data-field="temp"][data-render-ms]').waitFor();
      const apiPoints = async (days: number) => {
        const to = Math.floor(Date.now() / 1000);
        const series = await setup.manager.request(
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
      const { context, page, pageErrors } = await studio.open({ path: '/studio/things/LST-002' });
      await signInThroughForm(page, { email: setup.viewer.email, organizationName: 'Acme', password: setup.viewer.password });
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
