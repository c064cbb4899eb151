/** The fleet overview live: an alert opening arrives in the latest-alerts list and refreshes the figures without a reload. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { browserStoreTargets } from '../helpers/databases.js';
import { publishUplinks } from '../helpers/uplinks.js';
import { assertOverviewShows, section, text, useSeededFleet } from './overview-helpers.js';
import { screenshotNames } from './studio-test-helpers.js';

for (const target of browserStoreTargets) {
  const shot = screenshotNames(target);
  describe(`studio: fleet overview on ${target.name}`, { skip: browserSkipReason || target.skip }, () => {
    const { studio, clock, fleetHealth } = useSeededFleet(target);

    it('lists an alert opening live, newest first, and refreshes the figures without a reload', async () => {
      const { context, page, pageErrors } = await studio.open({ path: '/studio/' });
      await signInThroughForm(page);
      const latest = section(page, 'Latest alerts');
      await latest.getByText('Waiting for alerts').waitFor();
      const before = await fleetHealth();

      // OV-05 (installed, silent behind GW-1) speaks again with a low battery: its connection alerts close, a battery
      // alert opens, all announced on the alerts subscription.
      await publishUplinks(
        studio.server,
        [{ tsmId: 1110, tsmEv: 10, tsmTs: Math.floor(clock.now() / 1000) + 60, tsmTuid: 'OV-05', batl: 4 }],
        'GW-1',
      );
      await studio.server.app.alertEngine.settled();
      const log = latest.getByRole('log');
      const opened = log.getByRole('listitem').filter({ hasText: 'OV-05' }).filter({ hasText: 'battery low' });
      await opened.waitFor();
      // The period's start with its zone (the zone chosen in the header; the browser's here).
      assert.match(await text(opened), /^opened OV-05 battery low from .*\d{4}.*\d\d:\d\d:\d\d.* [A-Z][A-Za-z]*([+-]\d+)? · /);
      const closed = log
        .getByRole('listitem')
        .filter({ hasText: 'OV-05' })
        .filter({ hasText: /^closed/ });
      await closed.first().waitFor();
      assert.match(
        await text(closed.first()),
        /^closed OV-05 (device|gateway) connection lost .+\d\d:\d\d:\d\d.* [A-Z][A-Za-z]*([+-]\d+)? to .+\d\d:\d\d:\d\d.* [A-Z][A-Za-z]*([+-]\d+)? · /,
      );

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
          studio.server,
          [{ tsmId: 1110, tsmEv: 10, tsmTs: t + swing, tsmTuid: 'OV-05', batl: swing % 2 === 0 ? 90 : 4 }],
          'GW-1',
        );
      }
      await publishUplinks(studio.server, [{ tsmId: 1110, tsmEv: 10, tsmTs: t + 20, tsmTuid: 'OV-03', batl: 3 }], 'GW-2');
      await studio.server.app.alertEngine.settled();
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
  });
}
