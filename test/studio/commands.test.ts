/**
 * The studio's commands panel in a real browser: the form generated from the catalog, a command that goes from
 * `sent` to `applied` live when the simulated device answers, the platform's validation error on its input, and a
 * Viewer who sees the history but no form.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MqttClient } from 'mqtt';
import { respondToCommands, VirtualDevice } from '../../src/simulator/index.js';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { dataOf, signInAs } from '../helpers/graphql-users.js';
import { closeMqttClients, collectMessages, connectMqtt } from '../helpers/mqtt-clients.js';
import { testBootstrap } from '../helpers/test-app.js';
import { publishUplinks } from '../helpers/uplinks.js';
import { useStudio } from './studio-test-helpers.js';

const tuid = 'CMD-STUDIO-1';
const gatewayTuid = 'GW-STUDIO';
const sendCommands = 'mutation S($tuid: ID!, $c: [JSON!]!) { sendCommands(tuid: $tuid, commands: $c) { tuid } }';
const history = 'query H($tuid: ID!) { commands(tuid: $tuid) { statuses commands } }';

describe('studio: commands panel', { skip: browserSkipReason }, () => {
  // Registered first, so the gateway's MQTT client leaves while the platform still runs.
  after(closeMqttClients);
  const studio = useStudio();
  let manager: GraphqlClient;
  let gateway: MqttClient;
  let downlinks: ReturnType<typeof collectMessages>;

  before(async () => {
    manager = new GraphqlClient(studio.server);
    await manager.login();
    await publishUplinks(studio.server, [{ tsmId: 1112, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: tuid, uptime: 5 }], gatewayTuid);
    // The gateway listens for its thing's commands, as a real one would.
    gateway = await connectMqtt(studio.server.mqttUrl, {
      username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
      password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
    });
    downlinks = collectMessages(gateway);
    await gateway.subscribeAsync(`thingdesk/acme/down/${tuid}`, { qos: 1 });
  });

  it('sends a command built from the catalog, and shows it go from sent to applied when the simulated device answers', async () => {
    const { context, page, pageErrors } = await studio.open({ path: `/studio/things/${tuid}/commands` });
    await signInThroughForm(page);
    const form = page.getByRole('form', { name: 'Send a command' });
    await form.getByLabel('Command').selectOption({ label: 'Sensor Application Interval Configuration (1500)' });
    // The catalog's fields of 1500, each an input; the transactionId is prefilled with a fresh one.
    const transactionId = await form.getByLabel('Transaction id').inputValue();
    assert.match(transactionId, /^\d+$/);
    assert.equal(await form.getByLabel('Report interval').getAttribute('min'), '1');
    await form.getByLabel('Measurement interval').fill('60');
    await form.getByLabel('Report interval').fill('600');
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'commands-form');

    const before = downlinks.received.length;
    await form.getByRole('button', { name: 'Send command' }).click();
    const row = page.getByRole('row').filter({ hasText: transactionId });
    await row.getByText('sent', { exact: true }).waitFor();

    // What the platform published is what the form described.
    await downlinks.waitFor(before + 1);
    const commands = JSON.parse(downlinks.received[before]!.payload) as Record<string, unknown>[];
    assert.deepEqual(
      commands.map(({ tsmId, tsmEv, transactionId: id, measurementInterval, reportInterval }) => ({
        tsmId,
        tsmEv,
        id,
        measurementInterval,
        reportInterval,
      })),
      [{ tsmId: 1500, tsmEv: 30, id: Number(transactionId), measurementInterval: 60, reportInterval: 600 }],
    );
    // The simulator's device answers (its echo, event 31) through its gateway; the page was not reloaded.
    const device = new VirtualDevice({ tuid, gatewayTuid });
    const answers = respondToCommands(device, commands, Date.now());
    assert.equal(answers.length, 1);
    await publishUplinks(studio.server, answers as unknown as Record<string, unknown>[], gatewayTuid);
    await row.getByText('applied', { exact: true }).waitFor();
    const stored = dataOf(await manager.request(history, { tuid })).commands;
    assert.equal(stored[0].commands[0].transactionId, Number(transactionId));
    assert.deepEqual(stored[0].statuses, ['applied'], 'the page shows what the API answers');
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'commands-applied');
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(await seriousAccessibilityViolations(page), [], 'the dark theme keeps the contrast too');
    assert.deepEqual(pageErrors, []);
    await context.close();
  });

  it("puts the platform's validation error on its input: aria-invalid, described by the message the API gives", async () => {
    const { context, page, pageErrors } = await studio.open({ path: `/studio/things/${tuid}/commands` });
    await signInThroughForm(page);
    const form = page.getByRole('form', { name: 'Send a command' });
    await form.getByLabel('Command').selectOption({ label: 'Sensor Application Interval Configuration (1500)' });
    // Out of range: fill() passes the input's min, so the platform is the one that refuses.
    const input = form.getByLabel('Report interval');
    await input.fill('0');
    const sent = downlinks.received.length;
    await form.getByRole('button', { name: 'Send command' }).click();
    await page.locator('#command-reportInterval[aria-invalid="true"]').waitFor();

    const api = await manager.request(sendCommands, {
      tuid,
      c: [{ tsmId: 1500, tsmEv: 30, transactionId: 1, reportInterval: 0 }],
    });
    const problems = api.body.errors?.[0]?.extensions?.errors as { field: string; message: string }[];
    const expected = problems.find((problem) => problem.field === 'commands[0].reportInterval')?.message;
    assert.ok(expected, JSON.stringify(api.body));
    const describedBy = (await input.getAttribute('aria-describedby')) ?? '';
    const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'));
    assert.ok(errorId, describedBy);
    assert.equal((await page.locator(`#${errorId}`).textContent())?.trim(), expected);
    // The other inputs are not marked, and nothing was published.
    assert.equal(await form.getByLabel('Measurement interval').getAttribute('aria-invalid'), null);
    assert.equal(downlinks.received.length, sent);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'commands-validation');
    assert.deepEqual(pageErrors, []);
    await context.close();
  });

  it('shows a Viewer the history but no form (sendCommands is not in their schema)', async () => {
    const viewer = await signInAs(studio.server, 'Viewer');
    const { context, page, pageErrors } = await studio.open({ path: `/studio/things/${tuid}/commands` });
    await signInThroughForm(page, { email: viewer.email, organizationName: 'Acme', password: viewer.password });
    await page.getByRole('heading', { name: 'History' }).waitFor();
    const records = dataOf(await viewer.client.request(history, { tuid })).commands as { statuses: string[] }[];
    const commandCount = records.reduce((sum, record) => sum + record.statuses.length, 0);
    assert.ok(commandCount > 0);
    // The heading is drawn before the history query answers: wait for its last row, then count.
    await page.getByRole('row').nth(commandCount).waitFor();
    const shown = await page.getByRole('row').count();
    assert.equal(shown, commandCount + 1, 'one row per command, and the header');
    assert.equal(await page.getByRole('form', { name: 'Send a command' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Send command' }).count(), 0);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'commands-viewer');
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
