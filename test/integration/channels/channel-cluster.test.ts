/** SPEC section 13 notifications with two instances sharing PostgreSQL: one notification per change, not one per instance. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { manualEngineEnv } from '../../domain/alerts/alert-test-helpers.js';
import { createRule, send } from '../../domain/rules/rule-test-helpers.js';
import { Receiver, until, webhookTestEnv } from '../webhooks/webhook-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('notifications on two instances sharing PostgreSQL', { skip: postgresSkipReason }, () => {
  let first: TestApp;
  let second: TestApp;
  const chat = new Receiver();
  const lines = (suffix: string) =>
    chat.received.map((r) => (JSON.parse(r.body) as { text: string }).text.split('\n')[0]!).filter((l) => l.endsWith(suffix));

  before(async () => {
    await chat.start();
    const url = await createPostgresUrl();
    const env = { ...manualEngineEnv, ...webhookTestEnv, DATABASE_URL: url, NOTIFY_MIN_INTERVAL_S: '2' };
    first = await startTestApp(env);
    second = await startTestApp(env);
  });
  after(async () => {
    await second?.stop();
    await first?.stop();
    await chat.stop();
  });

  test('both instances seeing one opening notify once; a change on the other within the interval waits for its end, once', async () => {
    const rest = new RestClient(first);
    const channel = (await rest.post('/notification-channels', { name: 'cluster', type: 'chat', url: chat.url })).body.data.id;
    await createRule(rest, { name: 'cluster rule', threshold: 30, channels: [channel] });
    await second.app.alertEngine.reloadRules();
    // The other instance's channel view hears of the channel and the rule through NOTIFY.
    await sleep(1000);
    await Promise.all([send(first, [{ tuid: 'CL-1', temp: 41 }]), send(second, [{ tuid: 'CL-1', temp: 42 }])]);
    await until(() => lines(' on CL-1').length > 0 || undefined, 10_000, 'the opening');
    await send(second, [{ tuid: 'CL-1', temp: 10 }]);
    await sleep(500);
    assert.deepEqual(lines(' on CL-1'), ['[thingdesk] OPEN critical: temp > 30 on CL-1'], 'the closing waits for the interval');
    await until(() => lines(' on CL-1').length === 2 || undefined, 10_000, 'the closing at the interval’s end');
    await sleep(1000);
    assert.deepEqual(lines(' on CL-1'), ['[thingdesk] OPEN critical: temp > 30 on CL-1', '[thingdesk] CLOSED critical: temp > 30 on CL-1']);
  });
});
