/** The administration page's machine credentials: API clients and MQTT credentials, whose secrets it shows once. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { browserStoreTargets } from '../helpers/databases.js';
import { useAdminStudio } from './admin-helpers.js';

for (const target of browserStoreTargets) {
  describe(`studio: administration (${target.name})`, { skip: browserSkipReason || target.skip }, () => {
    const { studio, apiData, openAdmin } = useAdminStudio(target);

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
      const token = await fetch(studio.server.url(`${studio.server.config.restBasePath}/auth/client-token`), {
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
  });
}
