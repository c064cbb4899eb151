/**
 * Poison uplinks (issue 12, items 4 and 6): a payload of a hundred thousand elements or a message of hundreds of
 * kilobytes is acknowledged and bounded (the excess dead-lettered with the reason, never retried), and another
 * gateway's uplinks keep being stored meanwhile.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../helpers/databases.js';
import { closeMqttClients, connectMqtt } from '../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);
after(closeMqttClients);

const gateway = { username: testBootstrap.BOOTSTRAP_MQTT_USERNAME, password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD };
const t0 = 1_790_000_000;
const message = (tuid: string, i: number, extra: Record<string, unknown> = {}) => ({
  tsmId: 1110,
  tsmEv: 10,
  tsmTs: t0 + i,
  tsmTuid: tuid,
  tsmGw: 'GW-P',
  batl: 80,
  ...extra,
});

describe('uplink limits: UPLINK_MAX_MESSAGES and MESSAGE_MAX_BYTES', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp({ UPLINK_MAX_MESSAGES: '100', MESSAGE_MAX_BYTES: '4096' });
  });
  after(() => server?.stop());

  test('a payload of 120,000 elements is acknowledged, bounded to UPLINK_MAX_MESSAGES, and another gateway is served alongside', async () => {
    const poisoner = await connectMqtt(server.mqttUrl, gateway);
    const neighbour = await connectMqtt(server.mqttUrl, gateway);
    const poison = `[${new Array(120_000).fill('0').join(',')}]`;
    await Promise.all([
      poisoner.publishAsync('thingdesk/acme/up/GW-P', poison, { qos: 1 }),
      ...Array.from({ length: 20 }, (_, i) =>
        neighbour.publishAsync('thingdesk/acme/up/GW-N', JSON.stringify([message('NEIGHBOUR-1', i)]), { qos: 1 }),
      ),
    ]);
    assert.equal(await server.app.store.messages.count('NEIGHBOUR-1'), 20);
    const letters = await server.app.store.deadLetters.list({ organizationId: 'acme', limit: 1000 });
    const excess = letters.filter((letter) => letter.reason.includes('UPLINK_MAX_MESSAGES'));
    assert.equal(excess.length, 1);
    assert.equal(
      excess[0]!.reason,
      'messages [100] to [119999]: the payload holds 120000 messages; at most 100 are taken (UPLINK_MAX_MESSAGES)',
    );
    assert.equal(letters.filter((letter) => letter.source === 'thingdesk/acme/up/GW-P').length, 101, '100 unreadable elements, one excess');
  });

  test('the first UPLINK_MAX_MESSAGES messages of a long array are stored; exactly that many is taken whole', async () => {
    const client = await connectMqtt(server.mqttUrl, gateway);
    await client.publishAsync('thingdesk/acme/up/GW-P', JSON.stringify(Array.from({ length: 100 }, (_, i) => message('EXACT-1', i))), {
      qos: 1,
    });
    assert.equal(await server.app.store.messages.count('EXACT-1'), 100);
    await client.publishAsync('thingdesk/acme/up/GW-P', JSON.stringify(Array.from({ length: 150 }, (_, i) => message('LONG-1', i))), {
      qos: 1,
    });
    assert.equal(await server.app.store.messages.count('LONG-1'), 100);
  });

  test('a message over MESSAGE_MAX_BYTES is dead-lettered with its size; its neighbours in the payload are stored', async () => {
    const client = await connectMqtt(server.mqttUrl, gateway);
    const payload = [message('SIZE-1', 1), message('SIZE-2', 2, { note: 'x'.repeat(5000) }), message('SIZE-1', 3)];
    await client.publishAsync('thingdesk/acme/up/GW-S', JSON.stringify(payload), { qos: 1 });
    assert.equal(await server.app.store.messages.count('SIZE-1'), 2);
    assert.equal(await server.app.store.messages.count('SIZE-2'), 0);
    const letters = await server.app.store.deadLetters.list({ organizationId: 'acme', limit: 1000 });
    const size = JSON.stringify(payload[1]).length;
    assert.ok(
      letters.some((letter) => letter.reason === `message [1]: message is ${size} bytes; at most 4096 are stored (MESSAGE_MAX_BYTES)`),
      JSON.stringify(letters.map((l) => l.reason).slice(0, 5)),
    );
  });
});
