/**
 * Commands in human words (issue 38): the form labels inputs with the catalog's names (no wire names, no catalog
 * notes), offers events by their use without the device's echo, the history shows what was sent in those words,
 * a thing behind a silent gateway is warned about, and a command unanswered for COMMAND_ANSWER_TIMEOUT_S reads
 * `no answer` while the API keeps it `sent`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.js';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { dataOf, signInAs } from '../helpers/graphql-users.js';
import { closeMqttClients } from '../helpers/uplinks.js';
import { hear, minute } from '../domain/alerts/alert-test-helpers.js';
import { useStudio } from './studio-test-helpers.js';

after(closeMqttClients);

const answerTimeoutS = 3;

describe('studio: commands in human words, silent gateway, no answer', { skip: browserSkipReason }, () => {
  // The platform's clock stands still at about the real time once the gateway has gone silent.
  const clock = new ManualClock(Date.now() - 11 * minute);
  const studio = useStudio({
    clock,
    env: async () => ({
      GATEWAY_TIMEOUT_S: '600',
      DEVICE_TIMEOUT_S: '3600',
      ALERT_INTERVAL_S: '2000000',
      COMMAND_ANSWER_TIMEOUT_S: String(answerTimeoutS),
    }),
  });

  before(async () => {
    await hear(studio.server, 'GW-QUIET', ['WORDS-1']);
    clock.advance(11 * minute);
    await hear(studio.server, 'GW-LOUD', ['WORDS-2']);
    await studio.server.app.alertEngine.evaluateSilence();
  });

  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    it(`names inputs and events in words, shows what was sent, warns of the silent gateway (${viewport.width} px)`, async () => {
      const { context, page, pageErrors } = await studio.open({ path: '/studio/things/WORDS-1/commands', viewport });
      await signInThroughForm(page);
      const form = page.getByRole('form', { name: 'Send a command' });
      await form.getByLabel('Command').selectOption({ label: 'Sensor Application Interval Configuration (1500)' });

      // Labels are the catalog's words; no wire name, camelCase or catalog note is shown.
      const labels = (await form.locator('label').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
      for (const expected of ['Command', 'Event', 'Transaction id', 'Measurement interval', 'Report interval'])
        assert.ok(
          labels.some((label) => label.startsWith(expected)),
          `${expected} in ${labels.join(' / ')}`,
        );
      for (const label of labels) assert.doesNotMatch(label, /[a-z][A-Z]|tsmEv|\(tsm/, label);
      assert.doesNotMatch((await form.textContent()) ?? '', /seed/);

      // 1500 lists events 30 and 31; 31 is the device's echo, so only 30 is offered, with its use.
      const events = await form.getByLabel('Event').locator('option').allTextContents();
      assert.deepEqual(
        events.map((text) => text.trim()),
        ['Configuration and command messages (30)'],
      );

      // The thing's gateway is silent: said, with a link to it.
      const warning = page.getByRole('note').filter({ hasText: 'is silent' });
      await warning.waitFor();
      assert.equal(await warning.getByRole('link', { name: 'GW-QUIET' }).getAttribute('href'), '/studio/gateways/GW-QUIET');

      await form.getByLabel('Measurement interval').fill('60');
      await form.getByLabel('Report interval').fill('600');
      const transactionId = await form.getByLabel('Transaction id').inputValue();
      await form.getByRole('button', { name: 'Send command' }).click();
      await page.getByRole('status').filter({ hasText: 'Sent Sensor Application Interval Configuration' }).waitFor();
      const row = page.getByRole('row').filter({ hasText: transactionId });
      await row.waitFor();
      const rowText = (await row.textContent()) ?? '';
      assert.match(rowText, /Sensor Application Interval Configuration \(1500\)/);
      assert.match(rowText, /Measurement interval: 60/);
      assert.match(rowText, /Report interval: 600/);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, `commands-in-words-${viewport.width}`);
      await page.emulateMedia({ colorScheme: 'dark' });
      assert.deepEqual(await seriousAccessibilityViolations(page), [], 'the dark theme keeps the warning readable');

      // Unanswered past COMMAND_ANSWER_TIMEOUT_S: the studio says "no answer"; the API still says sent.
      await new Promise((resolve) => setTimeout(resolve, (answerTimeoutS + 1) * 1000));
      await page.reload();
      await page.getByRole('row').filter({ hasText: transactionId }).getByText('no answer', { exact: true }).waitFor();
      const manager = (await signInAs(studio.server, 'Manager')).client;
      const records = dataOf(await manager.request('{ commands(tuid: "WORDS-1") { commands } }')).commands as {
        commands: { transactionId: number; status: string }[];
      }[];
      const stored = records.flatMap((record) => record.commands).find((command) => command.transactionId === Number(transactionId));
      assert.equal(stored?.status, 'sent');
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      assert.deepEqual(pageErrors, []);
      await context.close();
    });
  }

  it('a thing behind a gateway that is online gets no warning', async () => {
    const { context, page, pageErrors } = await studio.open({ path: '/studio/things/WORDS-2/commands' });
    await signInThroughForm(page);
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await page.getByRole('form', { name: 'Send a command' }).waitFor();
    // The warning's check has had time to answer (the catalog read it follows has drawn the form).
    await page.waitForLoadState('networkidle');
    assert.equal(await page.getByRole('note').filter({ hasText: 'is silent' }).count(), 0);
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
