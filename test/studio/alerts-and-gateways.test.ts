/**
 * The studio's Alerts page (SPEC section 16: an incident as one row naming its gateway and its number of things,
 * acknowledgement with a note) and its Gateways pages, in a real browser: axe clean, no console error.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.js';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { RestClient } from '../helpers/rest-client.js';
import { signInAs } from '../helpers/graphql-users.js';
import { publishUplinks } from '../helpers/uplinks.js';
import { hear, minute } from '../domain/alerts/alert-test-helpers.js';
import { useStudio } from './studio-test-helpers.js';

describe('studio: alerts, gateways, the things list and passwords', { skip: browserSkipReason }, () => {
  const clock = new ManualClock(Date.now());
  const studio = useStudio({
    clock,
    env: async () => ({ GATEWAY_TIMEOUT_S: '600', DEVICE_TIMEOUT_S: '3600', ALERT_INTERVAL_S: '2000000' }),
  });

  before(async () => {
    await hear(studio.server, 'GW-NORTH', ['N-1', 'N-2', 'N-3']);
    await publishUplinks(studio.server, [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'S-1', batl: 7 }], 'GW-SOUTH');
    await studio.server.app.alertEngine.settled();
    clock.advance(11 * minute);
    await hear(studio.server, 'GW-SOUTH', ['S-1']);
    await studio.server.app.alertEngine.evaluateSilence();
  });

  it('lists a gateway silence as one row, acknowledges it with a note, and links to the gateway', async () => {
    const { context, page, pageErrors } = await studio.open({ path: '/studio/alerts', viewport: { width: 1440, height: 900 } });
    await signInThroughForm(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts' }).waitFor();
    const table = page.getByRole('table');
    const incident = table.getByRole('row').filter({ hasText: 'GW-NORTH silent: 3 things' });
    await incident.waitFor();
    assert.equal(await table.getByRole('row').count(), 3, 'the header, the incident and the battery alert');
    assert.match((await incident.textContent()) ?? '', /critical/);
    const battery = table.getByRole('row').filter({ hasText: 'battery low' });
    assert.match((await battery.textContent()) ?? '', /S-1.*7 %/s);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'alerts');

    await incident.getByRole('button', { name: /Acknowledge/ }).click();
    await page.getByLabel('Note (optional)').fill('Power cut, electrician called');
    await page.getByRole('dialog').getByRole('button', { name: 'Acknowledge' }).click();
    await page.getByRole('status').filter({ hasText: 'acknowledged' }).waitFor();
    await incident.filter({ hasText: 'Power cut, electrician called' }).waitFor();
    const periods = (await new RestClient(studio.server).get('/alerts?gateway_tuid=GW-NORTH&alert_type=gateway%20connection%20lost')).body
      .data.alerts as { acknowledged: { note: string } | null }[];
    assert.equal(periods.length, 3);
    assert.ok(periods.every((period) => period.acknowledged?.note === 'Power cut, electrician called'));

    // Filters are in the URL.
    await page.getByLabel('Severity').selectOption('warning');
    await page.waitForURL(/severity=warning/);
    await table.getByRole('row').filter({ hasText: 'GW-NORTH' }).waitFor({ state: 'detached' });

    await page.goto('/studio/alerts');
    await incident.getByRole('link', { name: 'GW-NORTH' }).click();
    await page.getByRole('heading', { name: 'Gateway GW-NORTH' }).waitFor();
    await page.getByRole('link', { name: 'N-3' }).waitFor();
    assert.match((await page.locator('dl').textContent()) ?? '', /silent since/);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'gateway-page');
    assert.deepEqual(pageErrors, []);
    await context.close();
  });

  it('lists the gateways on a phone; a Viewer sees alerts without acknowledging', async () => {
    const viewer = await signInAs(studio.server, 'Viewer');
    const { context, page, pageErrors } = await studio.open({ path: '/studio/gateways', viewport: { width: 390, height: 844 } });
    await signInThroughForm(page, { email: viewer.email, organizationName: 'Acme', password: viewer.password });
    const table = page.getByRole('table');
    await table.getByRole('link', { name: 'GW-SOUTH' }).waitFor();
    assert.match((await table.getByRole('row').filter({ hasText: 'GW-NORTH' }).textContent()) ?? '', /silent since/);
    assert.match((await table.getByRole('row').filter({ hasText: 'GW-SOUTH' }).textContent()) ?? '', /online/);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'gateways-phone');
    await page.goto('/studio/alerts');
    await page.getByRole('table').getByRole('row').filter({ hasText: 'battery low' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Acknowledge/ }).count(), 0);
    assert.deepEqual(pageErrors, []);
    await context.close();
  });

  it('sorts the things list by a column, shows the total, and keeps the gateway, battery and silence filters in the URL', async () => {
    const { context, page, pageErrors } = await studio.open({ path: '/studio/things', viewport: { width: 1440, height: 900 } });
    await signInThroughForm(page);
    const status = page.getByRole('status').filter({ hasText: 'Page 1' });
    await status.filter({ hasText: 'of 4' }).waitFor();
    await page.getByRole('button', { name: 'Battery' }).click();
    await page.waitForURL(/sort=battery_level%3Aasc/);
    await page
      .getByRole('columnheader', { name: /Battery/ })
      .and(page.locator('[aria-sort="ascending"]'))
      .waitFor();
    await page.getByRole('button', { name: 'Battery' }).click();
    await page.waitForURL(/sort=battery_level%3Adesc/);
    await page.getByLabel('Gateway').fill('GW-NORTH');
    await page.waitForURL(/gateway=GW-NORTH/);
    await status.filter({ hasText: 'of 3' }).waitFor();
    assert.deepEqual(await page.getByRole('table').getByRole('link', { name: /^N-/ }).allTextContents(), ['N-3', 'N-2', 'N-1']);
    await page.goto('/studio/things?battery_below=15&silent_for=3600');
    await page.getByRole('status').filter({ hasText: 'of 0' }).waitFor();
    await page.goto('/studio/things?battery_below=15');
    await page.getByRole('table').getByRole('link', { name: 'S-1' }).waitFor();
    assert.equal(await page.getByLabel('Battery below').inputValue(), '15');
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    assert.deepEqual(pageErrors, []);
    await context.close();
  });

  it('lets every user change their password, and a Manager reset a user password (shown once)', async () => {
    const installer = await signInAs(studio.server, 'Installer');
    const { context, page, pageErrors } = await studio.open({ path: '/studio/account', viewport: { width: 1440, height: 900 } });
    await signInThroughForm(page, { email: installer.email, organizationName: 'Acme', password: installer.password });
    await page.getByLabel('Current password').fill('wrong-password-0');
    await page.getByLabel('New password', { exact: true }).fill('a-brand-new-password');
    await page.getByLabel('New password again').fill('a-brand-new-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('The current password is wrong.').waitFor();
    await page.getByLabel('Current password').fill(installer.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await context.close();

    const manager = await studio.open({ path: '/studio/admin', viewport: { width: 1440, height: 900 } });
    await signInThroughForm(manager.page);
    await manager.page
      .getByRole('button', { name: new RegExp(`^Reset password\\s+of ${installer.email.replace(/[.]/g, '\\.')}$`) })
      .click();
    await manager.page.getByRole('button', { name: 'Reset password', exact: true }).click();
    const secret = manager.page.getByLabel('One-time password');
    await secret.waitFor();
    const password = await secret.inputValue();
    assert.ok(password.length >= 16);
    const login = await new GraphqlClient(studio.server).login({ email: installer.email, password });
    assert.ok(login.body.data?.login, 'the one-time password signs in');
    assert.deepEqual(await seriousAccessibilityViolations(manager.page), []);
    assert.deepEqual([...pageErrors, ...manager.pageErrors], []);
    await manager.context.close();
  });

  it('charts values with all their digits on an axis as wide as its labels (101,000 Pa, 94.475)', async () => {
    const nowS = Math.floor(clock.now() / 1000);
    await publishUplinks(
      studio.server,
      Array.from({ length: 24 }, (_, i) => ({
        tsmId: 12100,
        tsmEv: 10,
        tsmTs: nowS - 3600 - i * 600,
        tsmTuid: 'PRESS-1',
        airp: 101_000 + (i % 5) * 40,
        temp: 94.4 + (i % 4) * 0.025,
      })),
      'GW-SOUTH',
    );
    const { context, page, pageErrors } = await studio.open({ path: '/studio/things/PRESS-1', viewport: { width: 1440, height: 900 } });
    await signInThroughForm(page);
    const labelsOf = async (field: string) => {
      const figure = page.locator(`figure[data-field="${field}"][data-render-ms]`);
      await figure.waitFor();
      const labels = ((await figure.getAttribute('data-value-labels')) ?? '').split(' | ').filter(Boolean);
      return { labels, width: Number(await figure.getAttribute('data-value-axis-width')) };
    };
    const pressure = await labelsOf('airp');
    assert.ok(pressure.labels.length >= 2, JSON.stringify(pressure));
    for (const label of pressure.labels) {
      assert.match(label, /^\d{1,3}(,\d{3})+$/, 'whole thousands-grouped numbers');
      const value = Number(label.replace(/,/g, ''));
      assert.ok(value >= 100_900 && value <= 101_300, `${label} lies within the readings' range`);
    }
    assert.ok(pressure.width >= 7 * Math.max(...pressure.labels.map((label) => label.length)), `axis ${pressure.width} px wide`);
    const temperature = await labelsOf('temp');
    for (const label of temperature.labels) assert.match(label, /^94\.\d+$|^94$/, `${label}: the integer part kept`);
    await saveScreenshot(page, 'chart-axes');
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
