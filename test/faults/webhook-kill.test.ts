/**
 * Webhooks across kill -9 (SPEC section 11): deliveries committed with their messages (the outbox) while the receiver
 * is down survive a kill of the platform; after the restart, with the receiver back, every event arrives.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import mqtt from 'mqtt';
import { cleanupStores, createSqliteUrl } from '../helpers/databases.js';
import { freePort, startPlatformProcess } from '../helpers/platform-process.js';
import { testBootstrap } from '../helpers/test-app.js';
import { Receiver, until } from '../integration/webhooks/webhook-helpers.js';

after(cleanupStores);

// The figure: 10,000 deliveries pending at the kill, one event each (37 s on a busy 2-core host).
const messages = 10_000;

test('kill -9 with deliveries pending and the receiver down, then restart: every event arrives', { timeout: 240_000 }, async (t) => {
  const receiverPort = await freePort();
  const env = {
    DATABASE_URL: createSqliteUrl(),
    MQTT_PORT: String(await freePort()),
    PORT: String(await freePort()),
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
    // Claims taken before the kill expire after their lease (2 timeouts and 5 s).
    WEBHOOK_TIMEOUT_MS: '3000',
    // The backlog drains at the receiver's pace: more requests in flight keep the test short.
    WEBHOOK_CONCURRENCY: '32',
    // Long enough that nothing fails while the receiver is down.
    WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 40 }, (_, i) => (i === 0 ? '0' : '0.5')).join(','),
  };
  let platform = await startPlatformProcess(env);
  const base = `http://127.0.0.1:${env.PORT}/api/v1`;
  const token = async () => {
    const response = await fetch(`${base}/auth/client-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: testBootstrap.BOOTSTRAP_CLIENT_ID, client_secret: testBootstrap.BOOTSTRAP_CLIENT_SECRET }),
    });
    return ((await response.json()) as { data: { token: string } }).data.token;
  };
  const created = await fetch(`${base}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
    body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hook`, events: ['message.stored'] }),
  });
  assert.equal(created.status, 200, await created.clone().text());

  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${env.MQTT_PORT}`, {
    username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
    password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
    reconnectPeriod: 0,
  });
  for (let batch = 0; batch < messages / 100; batch++) {
    const payload = Array.from({ length: 100 }, (_, i) => ({
      tsmId: 12100,
      tsmEv: 10,
      tsmTs: 1_700_000_000 + batch * 100 + i,
      tsmTuid: `K-${i % 10}`,
      temp: 1,
    }));
    // QoS 1 is acknowledged after the commit, which holds the deliveries too.
    await client.publishAsync(`thingdesk/acme/up/GW-1`, JSON.stringify(payload), { qos: 1 });
  }
  await client.endAsync();
  const published = Date.now();
  platform.child.kill('SIGKILL');
  await platform.exited;

  const receiver = new Receiver();
  await receiver.start(receiverPort);
  try {
    platform = await startPlatformProcess(env);
    const restarted = Date.now();
    await until(() => new Set(receiver.events().map((e) => e.id)).size >= messages || undefined, 120_000, 'every event');
    const ids = receiver.events().map((e) => e.id);
    const duplicates = ids.length - new Set(ids).size;
    t.diagnostic(
      `${ids.length} received, ${duplicates} duplicates; restart ${restarted - published} ms, drain ${Date.now() - restarted} ms`,
    );
    assert.equal(new Set(ids).size, messages);
    assert.ok(duplicates <= messages / 100, `${duplicates} duplicates`);
  } finally {
    platform.child.kill('SIGKILL');
    await platform.exited;
    await receiver.stop();
  }
});
