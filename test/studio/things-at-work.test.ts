/**
 * The things list operators work in (SPEC sections 12 and 16, issue 38): names and label filters in the URL, bulk
 * actions with a result per thing, the export of the current filter, low batteries marked, cards on a phone, one
 * time convention with a zone switch; an Installer landing in installer mode and asked before claiming a device
 * never heard from; the first-run panel of an empty fleet. One page load per viewpoint, several checks each.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, describe, it } from 'node:test';
import { createOrganization, createUser } from '../../src/domain/identity/identity-service.js';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { browserStoreTargets } from '../helpers/databases.js';
import { dataOf } from '../helpers/graphql-users.js';
import { screenshotNames } from './studio-test-helpers.js';
import { useSeededThings } from './things-helpers.js';

const desktop = { width: 1440, height: 900 };
const phone = { width: 390, height: 844 };
const shownTuids = (page: import('playwright-core').Page) =>
  page
    .getByRole('table', { name: /^Things/ })
    .locator('tbody tr td.tuid a')
    .allTextContents();

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const target of browserStoreTargets) {
  const shot = screenshotNames(target);
  describe(`studio: the things list at work on ${target.name}`, { skip: browserSkipReason || target.skip }, () => {
    const setup = useSeededThings(target);
    const { studio } = setup;
    const labelsOf = async (tuid: string) =>
      dataOf(await setup.manager.request(`{ thing(tuid: "${tuid}") { labels { key value } } }`)).thing.labels;

    before(async () => {
      for (const [tuid, name, site] of [
        ['LST-001', 'Pump 1', 'north'],
        ['LST-002', 'Pump 2', 'north'],
        ['LST-003', 'Boiler', 'south'],
      ]) {
        dataOf(
          await setup.manager.request(
            'mutation U($tuid: ID!, $name: String, $site: String!) { updateThing(tuid: $tuid, name: $name, labels: [{ key: "site", value: $site }]) { tuid } }',
            {
              tuid,
              name,
              site,
            },
          ),
        );
      }
    });

    it('a Manager filters by label in the URL, sees names, marks, zones; acts on many things; exports the filter', async () => {
      const { context, page, pageErrors } = await studio.open({
        path: '/studio/things?label=site:north',
        viewport: desktop,
        timezoneId: 'America/New_York',
      });
      await signInThroughForm(page);
      await until(async () => JSON.stringify(await shownTuids(page)) === '["LST-001","LST-002"]', 'the label filter');
      const pumpRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'LST-001', exact: true }) });
      assert.equal((await pumpRow.locator('td.name').textContent())?.trim(), 'Pump 1');
      // The label filter is a chip, removable; adding one keeps both in the URL.
      await page.getByLabel('Label (key:value)').fill('nonsense');
      await page.getByRole('button', { name: 'Add label filter' }).click();
      assert.match((await page.locator('#things-label-error').textContent()) ?? '', /key:value/);
      await page.getByRole('button', { name: 'Remove label filter site:north' }).click();
      await page.waitForURL((url) => !url.search.includes('label='));
      await page.getByLabel('Label (key:value)').fill('site:south');
      await page.getByRole('button', { name: 'Add label filter' }).click();
      await page.waitForURL(/label=site%3Asouth/);
      await until(async () => JSON.stringify(await shownTuids(page)) === '["LST-003"]', 'the south label');

      // Every time carries its zone: the browser's (New York), then the platform's ALERT_TIMEZONE (UTC).
      const lastSeen = page.locator('td[data-label="Last seen"] time').first();
      assert.match((await lastSeen.getAttribute('title')) ?? '', /EST|EDT|GMT-[45]/);
      assert.doesNotMatch((await lastSeen.textContent()) ?? '', /^in /, 'never in the future');
      await page.getByLabel('Times in').selectOption('platform');
      await until(async () => /UTC/.test((await lastSeen.getAttribute('title')) ?? ''), 'the platform zone');

      // Low battery marked (every seventh thing reports 5 %); select two things and replace their labels.
      await page.goto('/studio/things?q=LST-00');
      await until(async () => (await shownTuids(page)).length === 10, 'the search');
      const lowRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'LST-000', exact: true }) });
      assert.equal(await lowRow.getByText('low', { exact: true }).count(), 1);
      assert.equal(await pumpRow.getByText('low', { exact: true }).count(), 0);
      await page.getByRole('checkbox', { name: 'Select LST-001' }).check();
      await page.getByRole('checkbox', { name: 'Select LST-002' }).check();
      await page.getByLabel('Action', { exact: true }).selectOption('set_labels');
      await page.getByLabel(/^Labels, one key=value/).fill('site=east\nroom=b-2');
      await page.getByRole('button', { name: 'Apply to 2' }).click();
      await page.getByText('2 of 2 done.').waitFor();
      assert.deepEqual(await page.getByRole('table', { name: 'Result per thing' }).locator('td.mono').allTextContents(), [
        'LST-001',
        'LST-002',
      ]);
      assert.deepEqual(await labelsOf('LST-002'), [
        { key: 'room', value: 'b-2' },
        { key: 'site', value: 'east' },
      ]);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, shot('things-bulk'));

      // The export is the current filter's, as GET /things/export answers it.
      await page.goto('/studio/things?group=north&status=installed');
      await until(async () => (await shownTuids(page)).length === 10, 'the north installed things');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
      const csv = await readFile((await download.path())!, 'utf8');
      const exported = csv
        .trim()
        .split('\r\n')
        .slice(1)
        .map((line) => line.split(',')[0]);
      assert.deepEqual(exported, await shownTuids(page));
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    for (const viewport of [desktop, phone]) {
      it(`a bulk command is chosen and filled in on the thing page's form, in words, and sent to each ticked thing (${viewport.width} px)`, async () => {
        const { context, page, pageErrors } = await studio.open({ path: '/studio/things?q=LST-00', viewport });
        await signInThroughForm(page);
        await until(async () => (await shownTuids(page)).length === 10, 'the search');
        await page.getByRole('checkbox', { name: 'Select LST-004' }).check();
        await page.getByRole('checkbox', { name: 'Select LST-005' }).check();
        await page.getByLabel('Action', { exact: true }).selectOption('send_commands');
        const form = page.getByRole('form', { name: 'Send a command' });
        await form.getByLabel('Command').selectOption({ label: 'Sensor Application Interval Configuration (1500)' });
        assert.equal(await page.getByRole('textbox', { name: /JSON/ }).count(), 0, 'no raw JSON to write');
        const labels = (await form.locator('label').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
        for (const expected of ['Command', 'Event', 'Transaction id', 'Measurement interval', 'Report interval'])
          assert.ok(
            labels.some((label) => label.startsWith(expected)),
            `${expected} in ${labels.join(' / ')}`,
          );
        for (const label of labels) assert.doesNotMatch(label, /[a-z][A-Z]|tsmEv|\(tsm/, label);
        // 1500's event 31 is the device's echo: not offered.
        const events = await form.getByLabel('Event').locator('option').allTextContents();
        assert.deepEqual(
          events.map((text) => text.trim()),
          ['Configuration and command messages (30)'],
        );
        await form.getByLabel('Measurement interval').fill('60');
        await form.getByLabel('Report interval').fill('600');
        const transactionId = Number(await form.getByLabel('Transaction id').inputValue());
        await form.getByRole('button', { name: 'Send to 2' }).click();
        await page.getByText('2 of 2 done.').waitFor();
        await form.getByRole('status').filter({ hasText: 'Sensor Application Interval Configuration: sent to 2 of 2 things.' }).waitFor();
        assert.deepEqual(await page.getByRole('table', { name: 'Result per thing' }).locator('td.mono').allTextContents(), [
          'LST-004',
          'LST-005',
        ]);
        for (const tuid of ['LST-004', 'LST-005']) {
          const { commands } = dataOf(await setup.manager.request(`{ commands(tuid: "${tuid}", limit: 5) { commands } }`));
          const sent = commands.flatMap((record: { commands: Record<string, unknown>[] }) => record.commands);
          assert.ok(
            sent.some(
              (command: Record<string, unknown>) =>
                command.tsmId === 1500 && command.tsmEv === 30 && command.transactionId === transactionId,
            ),
            `${tuid} got transaction ${transactionId}: ${JSON.stringify(sent)}`,
          );
        }
        assert.ok(((await page.evaluate('document.documentElement.scrollWidth')) as number) <= viewport.width, 'nothing scrolls sideways');
        assert.deepEqual(await seriousAccessibilityViolations(page), []);
        await page.emulateMedia({ colorScheme: 'dark' });
        assert.deepEqual(await seriousAccessibilityViolations(page), [], 'the dark theme too');
        await page.emulateMedia({ colorScheme: 'light' });
        if (viewport === desktop) {
          // From the top: the sticky navigation would otherwise be drawn over the form in a full-page capture.
          await page.evaluate('window.scrollTo(0, 0)');
          await saveScreenshot(page, shot('things-bulk-command'));
        }
        assert.deepEqual(pageErrors, []);
        await context.close();
      });
    }

    it('on a phone the rows are cards with battery, last seen and alerting on screen; axe clean', async () => {
      const { context, page, pageErrors } = await studio.open({ path: '/studio/things?q=LST-00', viewport: phone });
      await signInThroughForm(page);
      await until(async () => (await shownTuids(page)).length === 10, 'the cards');
      const card = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'LST-000', exact: true }) });
      for (const label of ['Battery', 'Last seen', 'Alerting']) {
        const box = await card.locator(`td[data-label="${label}"]`).boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= phone.width, `${label} is on screen: ${JSON.stringify(box)}`);
      }
      assert.match((await card.locator('td[data-label="Alerting"]').textContent()) ?? '', /alerting/);
      assert.ok(((await page.evaluate('document.documentElement.scrollWidth')) as number) <= phone.width, 'nothing scrolls sideways');
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, shot('things-phone-cards'));
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('an Installer lands in installer mode and is asked before a device never heard from is claimed', async () => {
      const deps = { store: studio.server.app.store, clock: studio.server.app.clock };
      const installer = { email: 'fitter@acme.test', organizationName: 'Acme', password: 'fitter-password-1' };
      await createUser(deps, { organizationId: 'acme', email: installer.email, password: installer.password, role: 'INSTALLER' });
      const { context, page, pageErrors } = await studio.open({ path: '/studio/', viewport: phone });
      await signInThroughForm(page, installer);
      await page.waitForURL(/\/studio\/install$/);
      await page.getByLabel('IMC').fill('ZZ09');
      await page.getByLabel('PSN').fill('000404');
      await page.getByRole('button', { name: 'Find device' }).click();
      await page.getByRole('button', { name: 'Set installed' }).click();
      const question = page.getByRole('alertdialog');
      await question.getByText(/never heard from/).waitFor();
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await question.getByRole('button', { name: 'Cancel' }).click();
      assert.equal(dataOf(await setup.manager.request('{ thing(tuid: "ZZ09000404") { tuid } }')).thing, null, 'nothing claimed');
      await page.getByRole('button', { name: 'Set installed' }).click();
      await page.getByRole('button', { name: 'Claim and set installed' }).click();
      await page.getByText('Installed', { exact: true }).waitFor();
      const claimed = dataOf(await setup.manager.request('{ thing(tuid: "ZZ09000404") { installationStatus } }')).thing;
      assert.equal(claimed.installationStatus, 'installed');
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('an empty fleet shows the first-run panel: broker, topic, a copyable mosquitto_pub line', async () => {
      const deps = { store: studio.server.app.store, clock: studio.server.app.clock };
      await createOrganization(deps, { name: 'Empty Co', id: 'empty-co' });
      const owner = { email: 'owner@empty.test', organizationName: 'Empty Co', password: 'owner-password-1' };
      await createUser(deps, { organizationId: 'empty-co', email: owner.email, password: owner.password, role: 'MANAGER' });
      const { context, page, pageErrors } = await studio.open({ path: '/studio/things', viewport: desktop });
      await signInThroughForm(page, owner);
      const panel = page.getByRole('region', { name: /No things yet/ });
      await panel.waitFor();
      assert.equal(await page.getByText('No things match these filters.').count(), 0);
      assert.match((await panel.textContent()) ?? '', /mqtt:\/\/[^:]+:\d+/);
      const example = await page.getByLabel('Try it with mosquitto_pub').inputValue();
      assert.match(example, /^mosquitto_pub -h \S+ -p \d+ .* -t 'thingdesk\/empty-co\/up\/GATEWAY-1'/s);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, shot('things-first-run'));
      assert.deepEqual(pageErrors, []);
      await context.close();
    });
  });
}
