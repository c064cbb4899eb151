/**
 * The studio's fleet overview (issue 14) in a real browser: its figures equal the API's `fleetHealth` answer for a
 * fleet seeded through MQTT uplinks and the GraphQL mutations, a Viewer sees the same read-only page, and it reads
 * at a phone's width and in the dark theme.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { storeTargets } from '../helpers/databases.js';
import { signInAs } from '../helpers/graphql-users.js';
import { assertOverviewShows, section, useSeededFleet } from './overview-helpers.js';
import { screenshotNames } from './studio-test-helpers.js';

for (const target of storeTargets) {
  const shot = screenshotNames(target);
  describe(`studio: fleet overview on ${target.name}`, { skip: browserSkipReason || target.skip }, () => {
    const { studio, fleetHealth } = useSeededFleet(target);

    it("shows the API's fleetHealth figures: statuses linking to the filtered list, alerting things, silent gateways, low batteries, groups", async () => {
      const health = await fleetHealth();
      // The seed is not trivial: every part of the page has something to show.
      assert.ok(health.alerting.thingCount >= 3 && health.silentGateways.count === 1 && health.lowBattery.count === 3);
      assert.ok(health.groups.some((group) => group.onlineShare !== null && group.onlineShare > 0 && group.onlineShare < 1));

      const { context, page, pageErrors } = await studio.open({ path: '/' });
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

    it('shows a Viewer the same figures, with no control, readable at a phone width and in the dark theme', async () => {
      const viewer = await signInAs(studio.server, 'Viewer');
      const health = await fleetHealth();
      const { context, page, pageErrors } = await studio.open({ path: '/', viewport: { width: 390, height: 844 } });
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
