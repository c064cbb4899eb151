/**
 * The studio's notification channels page (SPEC section 13) in a real browser: a Manager creates an e-mail channel
 * (a field error on its recipients first) and a chat channel (its URL shown masked once saved), sends a test that a
 * real SMTP server on loopback receives, reads each channel's delivery log with its attempts, page by page, and
 * deletes a channel after confirming. At 1440x900 and 390x844, light and dark, axe clean, no console error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { signInAs } from '../helpers/graphql-users.js';
import { RestClient } from '../helpers/rest-client.js';
import { MailServer } from '../integration/channels/channel-helpers.js';
import { Receiver } from '../integration/webhooks/webhook-helpers.js';
import { useStudio } from './studio-test-helpers.js';

describe('studio: notification channels', { skip: browserSkipReason }, () => {
  const mail = new MailServer();
  const chat = new Receiver();
  const studio = useStudio({
    env: async () => {
      await mail.start();
      await chat.start();
      return { SMTP_URL: mail.url, SMTP_FROM: 'alerts@td.example.test', WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' };
    },
  });
  let rest: RestClient;
  before(() => {
    rest = new RestClient(studio.server);
  });
  after(async () => {
    await mail.stop();
    await chat.stop();
  });

  it('a Manager creates e-mail and chat channels, tests one into a real SMTP server, reads the log by pages and deletes one', async () => {
    const { context, page, pageErrors } = await studio.open({ path: '/studio/channels', viewport: { width: 1440, height: 900 } });
    await signInThroughForm(page);
    await page.getByRole('heading', { level: 1, name: 'Notification channels' }).waitFor();
    assert.equal(
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels' }).getAttribute('aria-current'),
      'page',
    );
    await page.getByText('No notification channels yet.').waitFor();

    const form = page.getByRole('form', { name: 'New channel' });
    await form.getByLabel('Name').fill('shift lead');
    await form.getByLabel('Recipients').fill('lead@example.test, not an address');
    await form.getByRole('button', { name: 'Create channel' }).click();
    await form.locator('#channel-to-error').waitFor();
    assert.equal(await form.getByLabel('Recipients').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await form.getByLabel('Recipients').fill('lead@example.test, ops@example.test');
    await form.getByRole('button', { name: 'Create channel' }).click();
    await page.getByRole('status').filter({ hasText: 'Channel shift lead created.' }).waitFor();
    const mailRow = page.getByRole('row', { name: /shift lead/ });
    await mailRow.getByText('lead@example.test, ops@example.test').waitFor();

    const secretPath = `/hooks/SECRET-${Date.now()}`;
    const chatUrl = chat.url.replace('/hook', secretPath);
    await form.getByLabel('Name').fill('team chat');
    await form.getByRole('radio', { name: 'Chat webhook' }).check();
    await form.getByLabel('Webhook URL').fill(chatUrl);
    await form.getByRole('button', { name: 'Create channel' }).click();
    await page.getByRole('status').filter({ hasText: 'Channel team chat created.' }).waitFor();
    const chatRow = page.getByRole('row', { name: /team chat/ });
    await chatRow.getByText(/^http:\/\/127\.0\.0\.1:\d+\/…$/).waitFor();
    assert.ok(!(await page.content()).includes(secretPath), 'the chat URL is not shown once saved');

    // The test button: the e-mail really reaches the SMTP server, and the page says so.
    await mailRow.getByRole('button', { name: 'Send test to shift lead' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Test notification to shift lead sent/ })
      .waitFor();
    const received = await mail.waitFor((m) => m.subject === '[thingdesk] Test notification for channel shift lead');
    assert.deepEqual(received.to, ['lead@example.test', 'ops@example.test']);

    await mailRow.getByRole('button', { name: 'Delivery log of shift lead' }).click();
    const log = page.getByRole('region', { name: 'Deliveries of shift lead' });
    await log
      .locator('li')
      .filter({ hasText: /accepted, \d+\s+ms/ })
      .waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'channels');

    // More tests than a page of the log holds (20), through the API: the log pages on.
    const mailId = ((await rest.get('/notification-channels')).body.data as { id: string; name: string }[]).find(
      (c) => c.name === 'shift lead',
    )!.id;
    for (let i = 0; i < 21; i += 1) assert.equal((await rest.post(`/notification-channels/${mailId}/test`, {})).status, 200);
    await mailRow.getByRole('button', { name: 'Delivery log of shift lead' }).click();
    await log.locator('tbody tr').nth(19).waitFor();
    assert.equal(await log.locator('tbody tr').count(), 20);
    await page.getByRole('button', { name: 'Older notifications' }).click();
    await log.locator('tbody tr').nth(21).waitFor();
    assert.equal(await log.locator('tbody tr').count(), 22);
    assert.equal(await page.getByRole('button', { name: 'Older notifications' }).count(), 0);
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await page.emulateMedia({ colorScheme: 'light' });

    await chatRow.getByRole('button', { name: 'Delete team chat' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete the channel team chat?' });
    await confirm.getByRole('button', { name: 'Delete channel' }).click();
    await page.getByRole('status').filter({ hasText: 'Channel team chat deleted.' }).waitFor();
    await page.getByRole('row', { name: /team chat/ }).waitFor({ state: 'detached' });
    assert.deepEqual(
      ((await rest.get('/notification-channels')).body.data as { name: string }[]).map((c) => c.name),
      ['shift lead'],
    );
    assert.deepEqual(pageErrors, []);
    await context.close();
  });

  it('on a phone, dark: a failed chat test shows its error; a Viewer has no Channels page', async () => {
    const created = await rest.post('/notification-channels', { name: 'dead chat', type: 'chat', url: 'http://127.0.0.1:9/hook' });
    assert.equal(created.status, 200, created.text);
    const { context, page, pageErrors } = await studio.open({ path: '/studio/channels', viewport: { width: 390, height: 844 } });
    await page.emulateMedia({ colorScheme: 'dark' });
    await signInThroughForm(page);
    const row = page.getByRole('row', { name: /dead chat/ });
    await row.getByRole('button', { name: 'Send test to dead chat' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Test notification to dead chat failed: / })
      .waitFor();
    await row.getByRole('button', { name: 'Delivery log of dead chat' }).click();
    const log = page.getByRole('region', { name: 'Deliveries of dead chat' });
    await log.getByText('failed', { exact: true }).waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'channels-phone-dark');
    assert.deepEqual(pageErrors, []);
    await context.close();

    const viewer = await signInAs(studio.server, 'Viewer');
    const viewing = await studio.open({ path: '/studio/', viewport: { width: 1440, height: 900 } });
    await signInThroughForm(viewing.page, { email: viewer.email, organizationName: 'Acme', password: viewer.password });
    await viewing.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Rules' }).waitFor();
    assert.equal(await viewing.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels' }).count(), 0);
    assert.deepEqual(viewing.pageErrors, []);
    await viewing.context.close();
  });
});
