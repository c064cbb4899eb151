/** The administration page's users (create, role, delete, as the API then lists), and the roles it is refused to. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { browserStoreTargets } from '../helpers/databases.js';
import { signInAs } from '../helpers/graphql-users.js';
import { useAdminStudio } from './admin-helpers.js';

for (const target of browserStoreTargets) {
  describe(`studio: administration (${target.name})`, { skip: browserSkipReason || target.skip }, () => {
    const { studio, apiData, openAdmin } = useAdminStudio(target);

    it('creates a user, shows a refused e-mail on its field, changes the role and deletes with confirmation, as the API then lists', async () => {
      const { page, pageErrors, close } = await openAdmin();
      const form = page.locator('form', { has: page.getByRole('heading', { name: 'New user' }) });

      await form.getByLabel('E-mail').fill('not-an-address');
      await form.getByLabel('Password').fill('a-long-enough-password');
      await form.getByRole('button', { name: 'Create user' }).click();
      const email = form.getByLabel('E-mail');
      await page.locator('#new-user-email[aria-invalid="true"]').waitFor();
      const describedBy = await email.getAttribute('aria-describedby');
      assert.match((await page.locator(`#${describedBy}`).textContent()) ?? '', /e-mail address/);

      await email.fill('fitter@acme.test');
      await form.getByLabel('Role').selectOption({ label: 'Installer' });
      await form.getByRole('button', { name: 'Create user' }).click();
      await page.getByRole('status').filter({ hasText: 'User fitter@acme.test created.' }).waitFor();
      const listed = (await apiData('{ users { id email role } }')).users as { id: string; email: string; role: string }[];
      const fitter = listed.find((user) => user.email === 'fitter@acme.test');
      assert.equal(fitter?.role, 'INSTALLER');
      const row = page.getByRole('row', { name: /fitter@acme\.test/ });
      assert.equal(await row.getByLabel('Role of fitter@acme.test').inputValue(), 'INSTALLER');
      // The signed-in Manager cannot change or delete themself: no control is offered on their row.
      assert.equal(
        await page
          .getByRole('row', { name: /manager@acme\.test/ })
          .getByRole('button')
          .count(),
        0,
      );
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'admin-users');

      await row.getByLabel('Role of fitter@acme.test').selectOption({ label: 'Viewer' });
      await page.getByRole('status').filter({ hasText: 'fitter@acme.test is now viewer' }).waitFor();
      const changed = (await apiData('{ users { email role } }')).users as { email: string; role: string }[];
      assert.equal(changed.find((user) => user.email === 'fitter@acme.test')?.role, 'VIEWER');

      await row.getByRole('button', { name: 'Delete fitter@acme.test' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.waitFor();
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      // Cancelling deletes nothing.
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      assert.ok(((await apiData('{ users { email } }')).users as { email: string }[]).some((user) => user.email === 'fitter@acme.test'));
      await row.getByRole('button', { name: 'Delete fitter@acme.test' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Delete user' }).click();
      await page.getByRole('status').filter({ hasText: 'User fitter@acme.test deleted.' }).waitFor();
      assert.ok(!((await apiData('{ users { email } }')).users as { email: string }[]).some((user) => user.email === 'fitter@acme.test'));
      assert.equal(await page.getByRole('row', { name: /fitter@acme\.test/ }).count(), 0);
      assert.deepEqual(pageErrors, []);
      await close();
    });

    it('is not offered to an Installer, and says the role cannot open it', async () => {
      const installer = await signInAs(studio.server, 'Installer');
      const { context, page, pageErrors } = await studio.open({ path: '/studio/admin' });
      await signInThroughForm(page, { email: installer.email, organizationName: 'Acme', password: installer.password });
      await page.waitForURL(/\/studio\/admin$/);
      await page.getByText('Your role cannot open this page.').waitFor();
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Installer' }).waitFor({ state: 'visible' });
      assert.equal(await nav.getByRole('link', { name: 'Administration' }).count(), 0);
      assert.equal(await page.getByRole('tab').count(), 0);
      await saveScreenshot(page, 'admin-installer-refused');
      assert.deepEqual(pageErrors, []);
      await context.close();
    });
  });
}
