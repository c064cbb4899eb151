/** Installer mode on a phone: from IMC and PSN to installed in a group, a device not heard yet, and who is refused. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exampleMessage, getMessageDefinition } from '../../src/catalog/index.js';
import { tuidFromImcPsn } from '../../src/domain/things/device-code.js';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { browserStoreTargets } from '../helpers/databases.js';
import { signInAs } from '../helpers/graphql-users.js';
import { publishUplinks } from '../helpers/uplinks.js';
import { phone, useInstallerStudio } from './installer-helpers.js';

for (const target of browserStoreTargets) {
  describe(`studio: installer mode on a phone (${target.name})`, { skip: browserSkipReason || target.skip }, () => {
    const setup = useInstallerStudio(target);
    const { studio, thingOf, openInstaller } = setup;

    it('takes a reporting device from IMC and PSN to installed in a group in four taps, as the API then says', async () => {
      const tuid = tuidFromImcPsn('TD01', '000123');
      const tsmTs = Math.floor(Date.now() / 1000) - 120;
      // A neighbour report with its signal strength, then a battery report: the last message.
      const neighbour = { ...exampleMessage(1202), tsmTs: tsmTs - 60, tsmTuid: tuid, tsmGw: 'GW-1', rssiDbm: -61.5 };
      await publishUplinks(studio.server, [neighbour, { tsmId: 1110, tsmEv: 10, tsmTs, tsmTuid: tuid, tsmGw: 'GW-1', batl: 91 }]);
      const before = await thingOf(tuid);
      assert.equal(before?.installationStatus, 'new');

      const { context, page, pageErrors } = await openInstaller();
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-start');

      await page.getByLabel('IMC').fill('TD01');
      await page.getByLabel('PSN').fill('000123');
      await page.getByRole('button', { name: 'Find device' }).click(); // tap 1
      await page.getByTestId('installer-tuid').filter({ hasText: tuid }).waitFor();
      // The last message and when it arrived are the API's: the summary's timestamp and messages(limit: 1).
      const shownAt = await page.locator('time').getAttribute('datetime');
      assert.equal(shownAt, new Date(before!.timestamp! * 1000).toISOString());
      const latest = await setup.manager.request('query($t: ID!) { messages(tuid: $t, limit: 1) }', { t: tuid });
      const [message] = latest.body.data.messages as { tsmId: number; tsmEv: number }[];
      // In words: the message's catalog name, the battery, the signal and the gateway (not "message 1110, event 10").
      const name = getMessageDefinition(message!.tsmId)!.name;
      assert.equal(await page.getByTestId('installer-last-message').textContent(), `${name} (${message!.tsmId})`);
      assert.equal((await page.getByTestId('installer-battery').textContent())?.trim(), '91 %');
      assert.match(
        (await page.getByTestId('installer-signal').textContent()) ?? '',
        /^\s*-61[.,]5 dBm\s*\(radio signal from its neighbour, \d+ minutes? ago\)/,
      );
      assert.equal((await page.getByTestId('installer-gateway').textContent())?.trim(), 'GW-1');
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-found');
      // The dark theme (the system setting) keeps the contrast too.
      await page.emulateMedia({ colorScheme: 'dark' });
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-found-dark');
      await page.emulateMedia({ colorScheme: 'light' });

      // Touch targets of the flow are at least 44 px high, and nothing is wider than the phone.
      for (const name of ['Find device', 'Set installed', 'Scan QR code']) {
        const box = await page.getByRole('button', { name }).boundingBox();
        assert.ok(box && box.height >= 44, `${name}: ${JSON.stringify(box)}`);
      }
      assert.ok(((await page.evaluate('document.documentElement.scrollWidth')) as number) <= phone.width);

      await page.getByRole('button', { name: 'Set installed' }).click(); // tap 2
      await page.getByRole('list', { name: 'Groups' }).waitFor();
      assert.equal((await thingOf(tuid))?.installationStatus, 'installed');
      await page.getByRole('button', { name: /north-wing/ }).click(); // tap 3
      await page
        .getByRole('status')
        .filter({ hasText: `${tuid} is installed in group north-wing.` })
        .waitFor();
      const after = await thingOf(tuid);
      assert.equal(after?.installationStatus, 'installed');
      assert.equal(after?.groupId, 'north-wing');
      assert.equal(await page.getByRole('button', { name: /north-wing/ }).getAttribute('aria-pressed'), 'true');
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-done');

      await page.getByRole('button', { name: 'Install another device' }).click(); // tap 4
      assert.equal(await page.getByLabel('IMC').inputValue(), '');
      assert.equal(await page.getByTestId('installer-tuid').count(), 0);
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('says "no message yet" for a device never heard, updates when it reports, and names both missing fields', async () => {
      const { context, page, pageErrors } = await openInstaller();
      await page.getByRole('button', { name: 'Find device' }).click();
      for (const label of ['IMC', 'PSN']) {
        const input = page.getByLabel(label);
        assert.equal(await input.getAttribute('aria-invalid'), 'true');
        assert.match((await page.locator(`#${await input.getAttribute('aria-describedby')}`).textContent()) ?? '', new RegExp(label));
      }

      const tuid = tuidFromImcPsn('TD99', '000001');
      // A TUID the platform's pattern refuses (a slash): its answer is shown, and nothing is looked up further.
      await page.getByLabel('IMC').fill('TD/99');
      await page.getByLabel('PSN').fill('000001');
      await page.getByRole('button', { name: 'Find device' }).click();
      await page.getByRole('alert').filter({ hasText: 'IMC and PSN make the TUID TD/99000001, which the platform refuses' }).waitFor();
      assert.equal(await page.getByTestId('installer-tuid').count(), 0);

      await page.getByLabel('IMC').fill('TD99');
      await page.getByLabel('PSN').fill('000001');
      await page.getByRole('button', { name: 'Find device' }).click();
      await page.getByTestId('installer-tuid').filter({ hasText: tuid }).waitFor();
      assert.equal(await thingOf(tuid), null);
      await page.getByText('No message yet.').waitFor();
      await page.getByText('not known to the platform yet').waitFor({ state: 'visible' });
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-no-message');

      // The device reports while the installer waits: its first message shows without a reload.
      const tsmTs = Math.floor(Date.now() / 1000) - 5;
      await publishUplinks(studio.server, [{ tsmId: 1112, tsmEv: 10, tsmTs, tsmTuid: tuid, tsmGw: 'GW-1', uptime: 3 }]);
      await page.locator(`time[datetime="${new Date(tsmTs * 1000).toISOString()}"]`).waitFor();
      assert.equal(await page.getByText('No message yet.').count(), 0);
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('offers "Set installed" only where the state machine allows it, and says why not for a retired device', async () => {
      const tuid = tuidFromImcPsn('TDRT', '000042');
      const retired = await setup.manager.request(
        'mutation($t: ID!) { setInstallationStatus(tuid: $t, status: "retired") { installationStatus } }',
        {
          t: tuid,
        },
      );
      assert.equal(retired.body.data?.setInstallationStatus?.installationStatus, 'retired', JSON.stringify(retired.body));
      const next = await setup.manager.request('query($t: ID!) { thing(tuid: $t) { nextInstallationStatuses } }', { t: tuid });
      const allowed = next.body.data?.thing?.nextInstallationStatuses as string[];
      assert.ok(!allowed.includes('installed'), JSON.stringify(allowed));
      const { context, page, pageErrors } = await openInstaller();
      await page.getByLabel('IMC').fill('TDRT');
      await page.getByLabel('PSN').fill('000042');
      await page.getByRole('button', { name: 'Find device' }).click();
      const notice = page.getByRole('status').filter({ hasText: 'cannot be installed' });
      await notice.waitFor();
      assert.match((await notice.textContent()) ?? '', /retired/);
      assert.equal(await page.getByRole('button', { name: 'Set installed' }).count(), 0);
      assert.equal((await thingOf(tuid))?.installationStatus, 'retired');
      assert.equal(await page.getByRole('list', { name: 'Groups' }).count(), 0);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-refused');
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('is not offered to a Viewer, whose schema has no setInstallationStatus', async () => {
      const viewer = await signInAs(studio.server, 'Viewer');
      const { context, page, pageErrors } = await studio.open({ path: '/studio/install', viewport: phone });
      await signInThroughForm(page, { email: viewer.email, organizationName: 'Acme', password: viewer.password });
      await page.getByText('Your role cannot open this page.').waitFor();
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Things' }).waitFor({ state: 'visible' });
      assert.equal(await nav.getByRole('link', { name: 'Installer' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Set installed' }).count(), 0);
      await saveScreenshot(page, 'installer-viewer');
      assert.deepEqual(pageErrors, []);
      await context.close();
    });
  });
}
