/** The administration page's retention: the days in force and whose they are, overrides, and their range errors. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { browserStoreTargets } from '../helpers/databases.js';
import { useAdminStudio } from './admin-helpers.js';

for (const target of browserStoreTargets) {
  describe(`studio: administration (${target.name})`, { skip: browserSkipReason || target.skip }, () => {
    const { apiData, openAdmin } = useAdminStudio(target);

    it('shows the retention in force and whose it is, sets an override and returns one to the default, with range errors on their field', async () => {
      const { page, pageErrors, close } = await openAdmin('retention');
      const messages = page.getByLabel('Raw messages: days kept');
      const rollups = page.getByLabel('Rollups: days kept');
      const before = (await apiData('{ organization { retention { messageRetentionDays rollupRetentionDays } } }')).organization.retention;
      await page.getByRole('button', { name: 'Save retention' }).waitFor();
      const shownDays = async (field: string) => (await page.getByTestId(`in-force-${field}`).textContent())?.trim();
      const expectDays = (days: number) => (days === 0 ? 'forever' : `${days.toLocaleString('en-US')} ${days === 1 ? 'day' : 'days'}`);
      assert.equal(await shownDays('messageRetentionDays'), expectDays(before.messageRetentionDays));
      assert.equal(await shownDays('rollupRetentionDays'), expectDays(before.rollupRetentionDays));

      await messages.fill('40000');
      await page.getByRole('button', { name: 'Save retention' }).click();
      await page.locator('#retention-messageRetentionDays[aria-invalid="true"]').waitFor();
      assert.match((await page.locator(`#${await messages.getAttribute('aria-describedby')}`).textContent()) ?? '', /whole number of days/);

      await messages.fill('30');
      await rollups.fill('400');
      await page.getByRole('button', { name: 'Save retention' }).click();
      await page.getByRole('status').filter({ hasText: 'Retention saved.' }).waitFor();
      let retention = (
        await apiData('{ organization { retention { messageRetentionDays messageRetentionOverride rollupRetentionOverride } } }')
      ).organization.retention;
      assert.deepEqual(retention, { messageRetentionDays: 30, messageRetentionOverride: 30, rollupRetentionOverride: 400 });
      assert.equal(await shownDays('messageRetentionDays'), '30 days');
      assert.equal(await messages.getAttribute('aria-invalid'), null);

      // An emptied field returns to the platform's default (null), which the page then says is in force.
      await rollups.fill('');
      await page.getByRole('button', { name: 'Save retention' }).click();
      await page.getByRole('status').filter({ hasText: 'Retention saved.' }).waitFor();
      retention = (await apiData('{ organization { retention { rollupRetentionDays rollupRetentionOverride } } }')).organization.retention;
      assert.equal(retention.rollupRetentionOverride, null);
      assert.equal(await shownDays('rollupRetentionDays'), expectDays(retention.rollupRetentionDays));
      await page.getByText("In force: the platform's default.").waitFor({ state: 'visible' });
      await page.getByText("In force: the organization's own setting.").waitFor({ state: 'visible' });
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'admin-retention');
      // Dark theme (the system setting) and a 360 px wide screen: still no serious violation, nothing wider than the screen.
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.setViewportSize({ width: 360, height: 740 });
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      assert.ok(((await page.evaluate('document.documentElement.scrollWidth')) as number) <= 360);
      await saveScreenshot(page, 'admin-retention-dark-360');
      assert.deepEqual(pageErrors, []);
      await close();
    });
  });
}
