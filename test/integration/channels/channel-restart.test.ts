/**
 * SPEC section 13 noise control across a restart, on both stores: the notification of the latest state that waits
 * for NOTIFY_MIN_INTERVAL_S to end is a row of the outbox, not a timer, so it goes out after a restart, once, and the
 * interval's state is in the store, so the restarted platform does not send the same state again.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { manualEngineEnv } from '../../domain/alerts/alert-test-helpers.js';
import { createRule, send } from '../../domain/rules/rule-test-helpers.js';
import { Receiver, until, webhookTestEnv } from '../webhooks/webhook-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const target of storeTargets) {
  describe(`notifications across a restart on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp | undefined;
    const chat = new Receiver();
    after(async () => {
      await server?.stop();
      await chat.stop();
    });

    test('a change deferred to the interval’s end is sent by the restarted platform, once; the same state is not sent again', async () => {
      await chat.start();
      const url = await target.createUrl();
      const start = () => startTestApp({ ...manualEngineEnv, ...webhookTestEnv, DATABASE_URL: url, NOTIFY_MIN_INTERVAL_S: '3' });
      server = await start();
      const rest = () => new RestClient(server!);
      const channel = (await rest().post('/notification-channels', { name: 'restart', type: 'chat', url: chat.url })).body.data.id;
      await createRule(rest(), { name: 'restart rule', threshold: 30, channels: [channel] });
      await sleep(200);
      const lines = () => chat.received.map((r) => (JSON.parse(r.body) as { text: string }).text.split('\n')[0]);
      await send(server, [{ tuid: 'RS-1', temp: 35 }]);
      await until(() => lines().length === 1 || undefined, 10_000, 'the opening');
      await send(server, [{ tuid: 'RS-1', temp: 20 }]);
      await server.stop();
      server = await start();
      await until(() => lines().length === 2 || undefined, 15_000, 'the deferred closing after the restart');
      assert.deepEqual(lines(), ['[thingdesk] OPEN critical: temp > 30 on RS-1', '[thingdesk] CLOSED critical: temp > 30 on RS-1']);
      // The restarted platform knows what was sent: a message that keeps the thing closed sends nothing more.
      await send(server, [{ tuid: 'RS-1', temp: 10 }]);
      await sleep(1000);
      assert.equal(lines().length, 2, lines().join(' | '));
    });
  });
}
