/** The administration page's webhooks (SPEC section 11): create (secret shown once), send a test event, the log, replay. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { Receiver, verify } from '../integration/webhooks/webhook-helpers.js';
import { useStudio } from './studio-test-helpers.js';

describe('studio: webhooks', { skip: browserSkipReason }, () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await new Receiver().start();
  });
  after(() => receiver.stop());
  const studio = useStudio({ env: async () => ({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' }) });

  it('creates a webhook whose secret signs the test event, shows the log with its attempt, and replays it', async () => {
    const { context, page, pageErrors } = await studio.open({ path: '/studio/admin?tab=webhooks', viewport: { width: 1440, height: 900 } });
    await signInThroughForm(page);
    await page.getByRole('heading', { level: 2, name: 'Webhooks' }).waitFor();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('checkbox', { name: 'alert.opened' }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'Webhook created' });
    await dialog.waitFor();
    const secret = await dialog.getByLabel('Signing secret').inputValue();
    assert.match(secret, /^whsec_/);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await dialog.getByRole('button', { name: 'I have copied it' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.ok(!(await page.content()).includes(secret), 'the secret is gone once the dialog is closed');

    const row = page.getByRole('row', { name: new RegExp(receiver.url.replaceAll('/', '\\/')) });
    await row.getByText('healthy').waitFor();
    await row.getByRole('button', { name: `Send test to ${receiver.url}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /answered 200/ })
      .waitFor();
    verify(secret, receiver.received[0]!);

    await row.getByRole('button', { name: `Delivery log of ${receiver.url}` }).click();
    const log = page.getByRole('region', { name: `Delivery log of ${receiver.url}` });
    await log.getByText('webhook.test').waitFor();
    await log
      .locator('li')
      .filter({ hasText: /200, \d+\s+ms/ })
      .waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'admin-webhooks');
    await log.evaluate((element) => element.scrollIntoView({ block: 'center' }));
    await saveScreenshot(page, 'admin-webhooks-view', { fullPage: false });
    await log.getByRole('button', { name: /^Replay delivery whd_/ }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /queued again/ })
      .waitFor();
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
