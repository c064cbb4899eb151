/**
 * The studio's alert rules page (SPEC section 13 and 16) in a real browser: a Manager writes a rule with the form
 * (the field offered from the catalog, a server field error on its input, the preview's count), changes, disables
 * and deletes it; a Viewer reads the rules without controls; a rule's alert shows with its severity and value on
 * the thing page and the overview. At 1440x900 and 390x844, axe clean, no console error.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { signInAs } from '../helpers/graphql-users.js';
import { RestClient } from '../helpers/rest-client.js';
import { publishUplinks } from '../helpers/uplinks.js';
import { useStudio } from './studio-test-helpers.js';

const weather = 12100;
const nowS = Math.floor(Date.now() / 1000);

describe('studio: alert rules', { skip: browserSkipReason }, () => {
  const studio = useStudio();
  let rest: RestClient;

  before(async () => {
    rest = new RestClient(studio.server);
    assert.equal((await rest.post('/groups', { group_id: 'freezers' })).status, 200);
    await publishUplinks(studio.server, [
      { tsmId: weather, tsmEv: 10, tsmTs: nowS - 60, tsmTuid: 'RT-1', temp: 21.5 },
      { tsmId: weather, tsmEv: 10, tsmTs: nowS - 60, tsmTuid: 'RT-2', temp: 19 },
    ]);
    assert.equal((await rest.post('/things/RT-1/group', { group_id: 'freezers' })).status, 200);
  });

  it('a Manager creates a rule from the catalog, sees a field error on its field and the preview, edits, disables and deletes it', async () => {
    const { context, page, pageErrors } = await studio.open({ path: '/studio/rules', viewport: { width: 1440, height: 900 } });
    await signInThroughForm(page);
    await page.getByRole('heading', { level: 1, name: 'Alert rules' }).waitFor();
    assert.equal(
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Rules' }).getAttribute('aria-current'),
      'page',
    );
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('form', { name: 'New rule' });
    await form.getByLabel('Name').fill('too warm');
    await form.getByLabel('Message', { exact: true }).selectOption({ label: '12100 Weather Info' });
    const offered = await form.getByLabel('Catalog field').locator('option').allTextContents();
    assert.ok(
      offered.some((text) => text.startsWith('temp (')),
      `temp is offered: ${offered.join(' | ')}`,
    );
    await form.getByLabel('Catalog field').selectOption('temp');
    assert.equal(await form.getByLabel('Field path').inputValue(), 'temp');

    await form.locator('[data-preview-count="2"]').waitFor();
    await form.getByRole('checkbox', { name: 'freezers' }).check();
    await form.locator('[data-preview-count="1"]').waitFor();
    await form.getByRole('cell', { name: 'RT-1' }).waitFor();
    await form.getByRole('cell', { name: '21.5' }).waitFor();

    await form.getByLabel('Condition').selectOption('gt');
    await form.getByLabel('Threshold', { exact: true }).fill('30');
    await form.getByLabel('Clear threshold').fill('35');
    await form.getByLabel('Severity').selectOption('critical');
    await form.getByRole('button', { name: 'Create rule' }).click();
    // The platform's hysteresis rule, shown on the clear threshold's input.
    await form
      .locator('#rule-clear-threshold-error')
      .filter({ hasText: /at or below the threshold/ })
      .waitFor();
    assert.equal(await form.getByLabel('Clear threshold').getAttribute('aria-invalid'), 'true');
    assert.equal(await form.getByLabel('Threshold', { exact: true }).getAttribute('aria-invalid'), null);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'alert-rule-form');

    await form.getByLabel('Clear threshold').fill('28');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await page.getByRole('status').filter({ hasText: 'Rule too warm created.' }).waitFor();
    const row = page.getByRole('row', { name: /too warm/ });
    await row.getByText('temp > 30').waitFor();
    await row.getByText('group freezers').waitFor();
    await row.getByText('critical').waitFor();

    await row.getByRole('button', { name: 'Edit too warm' }).click();
    const edit = page.getByRole('form', { name: 'Edit rule too warm' });
    assert.equal(await edit.getByLabel('Catalog field').inputValue(), 'temp', 'the catalog field of the saved rule');
    await edit.getByLabel('Threshold', { exact: true }).fill('32');
    await edit.getByRole('button', { name: 'Save rule' }).click();
    await page.getByRole('status').filter({ hasText: 'Rule too warm saved.' }).waitFor();
    await row.getByText('temp > 32').waitFor();

    await row.getByRole('button', { name: 'Disable too warm' }).click();
    await page.getByRole('status').filter({ hasText: 'Rule too warm disabled' }).waitFor();
    await row.getByText('disabled', { exact: true }).waitFor();
    assert.equal((await rest.get('/alert-rules')).body.data[0].enabled, false);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'alert-rules');

    await row.getByRole('button', { name: 'Delete too warm' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete the rule too warm?' });
    await confirm.getByRole('button', { name: 'Delete rule' }).click();
    await page.getByRole('status').filter({ hasText: 'Rule too warm deleted.' }).waitFor();
    await page.getByText('No alert rules yet.').waitFor();
    assert.deepEqual((await rest.get('/alert-rules')).body.data, []);
    assert.deepEqual(pageErrors, []);
    await context.close();
  });

  it('a Viewer reads the rules, told the page is read only, with no control to change them', async () => {
    const created = await rest.post('/alert-rules', {
      name: 'cold',
      tsm_id: weather,
      field: 'temp',
      op: 'lt',
      threshold: 2,
      severity: 'info',
    });
    assert.equal(created.status, 200, created.text);
    const viewer = await signInAs(studio.server, 'Viewer');
    const { context, page, pageErrors } = await studio.open({ path: '/studio/rules', viewport: { width: 390, height: 844 } });
    await signInThroughForm(page, { email: viewer.email, organizationName: 'Acme', password: viewer.password });
    await page.getByRole('heading', { level: 1, name: 'Alert rules' }).waitFor();
    const row = page.getByRole('row', { name: /cold/ });
    await row.getByText('temp < 2').waitFor();
    await page.getByText(/Read only: your role can see the rules/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'New rule' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /Edit|Disable|Delete/ }).count(), 0);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'alert-rules-viewer-phone');
    assert.deepEqual(pageErrors, []);
    await context.close();
    assert.equal((await rest.delete(`/alert-rules/${created.body.data.id}`)).status, 200);
  });

  it("a rule's alert opened by an uplink shows with its severity and value on the thing page and the overview", async () => {
    const created = await rest.post('/alert-rules', {
      name: 'hot',
      tsm_id: weather,
      field: 'temp',
      op: 'gt',
      threshold: 30,
      severity: 'critical',
    });
    assert.equal(created.status, 200, created.text);
    await publishUplinks(studio.server, [{ tsmId: weather, tsmEv: 10, tsmTs: nowS, tsmTuid: 'RT-2', temp: 35.5 }]);
    await studio.server.app.alertEngine.settled();

    const { context, page, pageErrors } = await studio.open({ path: '/studio/things/RT-2', viewport: { width: 390, height: 844 } });
    await signInThroughForm(page);
    const alert = page.locator('li[data-alert="hot"]');
    await alert.waitFor();
    await alert.locator('[data-severity="critical"]').waitFor();
    await alert.getByText('value 35.5').waitFor();
    await alert.getByText('active').waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'thing-rule-alert-phone');

    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    const alerting = page.getByRole('region', { name: 'Alerting now' });
    const line = alerting.locator('li').filter({ hasText: 'hot' });
    await line.locator('[data-severity="critical"]').waitFor();
    await line.getByText('value 35.5').waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
