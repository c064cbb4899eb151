import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  browserSkipReason,
  ensureStudioBuilt,
  launchBrowser,
  openStudio,
  saveScreenshot,
  seriousAccessibilityViolations,
  signInThroughForm,
} from '../helpers/browser.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { signInAs } from '../helpers/graphql-users.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

for (const target of storeTargets) {
  describe(`studio: administration (${target.name})`, { skip: browserSkipReason || target.skip }, () => {
    let server: TestApp;
    let browser: Browser;
    /** The bootstrap Manager over the API: what the platform lists after each change made in the studio. */
    let api: GraphqlClient;

    before(async () => {
      await ensureStudioBuilt();
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      browser = await launchBrowser();
      api = new GraphqlClient(server);
      await api.login();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      await cleanupStores();
    });

    const apiData = async (query: string) => {
      const response = await api.request(query);
      assert.equal(response.body.errors, undefined, JSON.stringify(response.body));
      return response.body.data;
    };

    async function openAdmin(tab?: string): Promise<{ page: Page; pageErrors: string[]; close: () => Promise<void> }> {
      const { context, page, pageErrors } = await openStudio(browser, server, { path: `/studio/admin${tab ? `?tab=${tab}` : ''}` });
      await signInThroughForm(page);
      await page.getByRole('heading', { level: 1, name: 'Administration' }).waitFor();
      return { page, pageErrors, close: () => context.close() };
    }

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

    it('creates an API client whose secret is shown once in a dialog, works at the token endpoint, and is gone after closing; revokes it', async () => {
      const { page, pageErrors, close } = await openAdmin();
      await page.getByRole('tab', { name: 'API clients' }).click();
      await page.waitForURL(/\?tab=api-clients$/);
      await page.getByLabel('Name').fill('Billing export');
      await page.getByRole('button', { name: 'Create API client' }).click();
      const dialog = page.getByRole('dialog', { name: 'API client created' });
      await dialog.waitFor();
      assert.match((await dialog.textContent()) ?? '', /you will not see it again/);
      const clientId = await dialog.getByLabel('Client id').inputValue();
      const secret = await dialog.getByLabel('Client secret').inputValue();
      const listed = (await apiData('{ apiClients { clientId name revoked } }')).apiClients as {
        clientId: string;
        name: string;
        revoked: boolean;
      }[];
      assert.deepEqual(
        listed.find((client) => client.clientId === clientId),
        { clientId, name: 'Billing export', revoked: false },
      );
      // The secret shown is the one the platform accepts (REST's client-token endpoint).
      const token = await fetch(server.url(`${server.config.restBasePath}/auth/client-token`), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: clientId, client_secret: secret }),
      });
      assert.equal(token.status, 200, await token.clone().text());

      // Copy: the clipboard when the browser allows it, else the text is selected for copying by hand; either is said.
      await dialog.getByRole('button', { name: 'Copy client secret' }).click();
      await dialog
        .getByRole('status')
        .filter({ hasText: /Client secret (copied|selected)/ })
        .waitFor();
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'admin-api-client-secret');

      await dialog.getByRole('button', { name: 'I have copied it' }).click();
      await dialog.waitFor({ state: 'detached' });
      assert.equal(await page.getByText(secret).count(), 0);
      assert.ok(!(await page.content()).includes(secret), 'the secret is nowhere in the page once the dialog is closed');
      const row = page.getByRole('row', { name: /Billing export/ });
      await row.getByText(clientId).waitFor({ state: 'visible' });

      await row.getByRole('button', { name: 'Revoke Billing export' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke API client' }).click();
      await row.getByText('revoked').waitFor();
      const revoked = (await apiData('{ apiClients { clientId revoked } }')).apiClients as { clientId: string; revoked: boolean }[];
      assert.equal(revoked.find((client) => client.clientId === clientId)?.revoked, true);
      assert.deepEqual(pageErrors, []);
      await close();
    });

    it('creates an MQTT credential of a kind, shows its password once, names a taken username, and revokes it', async () => {
      const { page, pageErrors, close } = await openAdmin('mqtt');
      await page.getByRole('radio', { name: /Integration/ }).check();
      await page.getByLabel('Username (optional)').fill('acme-dashboard');
      await page.getByRole('button', { name: 'Create MQTT credential' }).click();
      const dialog = page.getByRole('dialog', { name: 'MQTT credential created' });
      await dialog.waitFor();
      assert.equal(await dialog.getByLabel('Username').inputValue(), 'acme-dashboard');
      const password = await dialog.getByLabel('Password').inputValue();
      assert.ok(password.length >= 16);
      const listed = (await apiData('{ mqttCredentials { username kind revoked } }')).mqttCredentials as {
        username: string;
        kind: string;
        revoked: boolean;
      }[];
      assert.deepEqual(
        listed.find((credential) => credential.username === 'acme-dashboard'),
        { username: 'acme-dashboard', kind: 'INTEGRATION', revoked: false },
      );
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      assert.ok(!(await page.content()).includes(password));

      // The same username again: the platform refuses it, and the form says why.
      await page.getByLabel('Username (optional)').fill('acme-dashboard');
      await page.getByRole('button', { name: 'Create MQTT credential' }).click();
      await page.getByRole('alert').filter({ hasText: 'acme-dashboard is not available' }).waitFor();

      await page
        .getByRole('row', { name: /acme-dashboard/ })
        .getByRole('button', { name: 'Revoke acme-dashboard' })
        .click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke MQTT credential' }).click();
      await page
        .getByRole('row', { name: /acme-dashboard/ })
        .getByText('revoked')
        .waitFor();
      const after = (await apiData('{ mqttCredentials { username revoked } }')).mqttCredentials as { username: string; revoked: boolean }[];
      assert.equal(after.find((credential) => credential.username === 'acme-dashboard')?.revoked, true);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'admin-mqtt');
      assert.deepEqual(pageErrors, []);
      await close();
    });

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

    it('is not offered to an Installer, and says the role cannot open it', async () => {
      const installer = await signInAs(server, 'Installer');
      const { context, page, pageErrors } = await openStudio(browser, server, { path: '/studio/admin' });
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
