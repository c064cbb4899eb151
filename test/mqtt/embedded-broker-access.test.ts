import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mqtt, { type IClientOptions, type IConnackPacket, type MqttClient } from 'mqtt';
import { createMqttCredential, createOrganization, revokeMqttCredential } from '../../src/domain/identity/identity-service.js';
import { cleanupStores } from '../helpers/databases.js';
import { closeMqttClients, collectMessages, connectMqtt, eventually, grantedQos } from '../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);
after(closeMqttClients);

/**
 * What a refused publish looks like: MQTT 3.1.1 has no way to refuse one but closing the connection; MQTT 5
 * answers a PUBACK with reason code 0x87 (Not authorized) and keeps the connection.
 */
async function assertPublishRefused(client: MqttClient, protocolVersion: 4 | 5, topic: string, payload: string): Promise<void> {
  if (protocolVersion === 4) {
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.publish(topic, payload, { qos: 1 });
    await closed;
    return;
  }
  await assert.rejects(client.publishAsync(topic, payload, { qos: 1 }), /Not authorized/i);
  assert.equal(client.connected, true, 'an MQTT 5 client stays connected after a refused publish');
}

for (const protocolVersion of [4, 5] as const) {
  describe(`embedded broker: authentication and access rules (SPEC section 6), MQTT ${protocolVersion === 4 ? '3.1.1' : '5'}`, () => {
    let server: TestApp;
    const connect = (options: IClientOptions = {}) => connectMqtt(server.mqttUrl, { protocolVersion, ...options });
    const gateway = { username: testBootstrap.BOOTSTRAP_MQTT_USERNAME, password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD };
    const integration = { username: 'acme-feed', password: 'acme-feed-password' };
    before(async () => {
      server = await startTestApp();
      const deps = { store: server.app.store, clock: server.app.clock };
      await createMqttCredential(deps, { organizationId: 'acme', kind: 'integration', ...integration });
      await createOrganization(deps, { name: 'Other', id: 'other' });
      await createMqttCredential(deps, {
        organizationId: 'other',
        kind: 'gateway',
        username: 'other-gateway',
        password: 'other-gateway-password',
      });
      await createMqttCredential(deps, {
        organizationId: 'acme',
        kind: 'gateway',
        username: 'revoked-gateway',
        password: 'revoked-password',
      });
      await revokeMqttCredential(deps, { username: 'revoked-gateway' });
    });
    after(() => server?.stop());

    // MQTT 3.1.1 has no Receive Maximum.
    if (protocolVersion === 5)
      test('an MQTT 5 client is told the Receive Maximum (MQTT_RECEIVE_MAXIMUM) in the CONNACK', async () => {
        const client = mqtt.connect(server.mqttUrl, { protocolVersion, reconnectPeriod: 0, ...gateway });
        try {
          const connack = await new Promise<IConnackPacket>((resolve) => client.once('connect', resolve));
          assert.equal(connack.properties?.receiveMaximum, 32, 'the default of MQTT_RECEIVE_MAXIMUM');
        } finally {
          await client.endAsync(true);
        }
      });

    test('a known credential connects; no, wrong and revoked credentials are refused', async () => {
      await connect(gateway);
      await assert.rejects(connect(), /Bad user ?name or password|Not authorized/i);
      await assert.rejects(connect({ username: gateway.username, password: 'wrong' }), /Bad user ?name or password/i);
      await assert.rejects(connect({ username: 'nobody', password: 'whatever1' }), /Bad user ?name or password/i);
      await assert.rejects(connect({ username: 'revoked-gateway', password: 'revoked-password' }), /Bad user ?name or password/i);
    });

    test("a gateway may publish to its organization's up topic (acknowledged and stored) but not to another's", async () => {
      const client = await connect(gateway);
      const message = { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'ACCESS-1', tsmGw: 'GW-A', batl: 80 };
      await client.publishAsync('thingdesk/acme/up/GW-A', JSON.stringify([message]), { qos: 1 });
      assert.equal(await server.app.store.messages.count('ACCESS-1'), 1, 'committed before the PUBACK');

      const intruder = await connect(gateway);
      await assertPublishRefused(
        intruder,
        protocolVersion,
        'thingdesk/other/up/GW-A',
        JSON.stringify([{ ...message, tsmTuid: 'ACCESS-2' }]),
      );
      assert.equal(await server.app.store.things.get('ACCESS-2'), undefined);
    });

    test('a gateway may not publish to a down topic', async () => {
      const client = await connect(gateway);
      await assertPublishRefused(client, protocolVersion, 'thingdesk/acme/down/ACCESS-1', '[]');
    });

    test("a gateway may subscribe to its organization's down topics only", async () => {
      const client = await connect(gateway);
      assert.deepEqual(await grantedQos(client, ['thingdesk/acme/down/+', 'thingdesk/acme/down/T-1']), [1, 1]);
      assert.deepEqual(
        await grantedQos(client, ['thingdesk/other/down/+', 'thingdesk/acme/up/+', 'thingdesk/acme/data/#', '#']),
        [128, 128, 128, 128],
      );
    });

    test("an integration may subscribe to its organization's data feed and alerts, not to others' or to uplinks", async () => {
      const client = await connect(integration);
      assert.deepEqual(await grantedQos(client, ['thingdesk/acme/data/#', 'thingdesk/acme/alerts']), [1, 1]);
      assert.deepEqual(
        await grantedQos(client, ['thingdesk/other/data/#', 'thingdesk/acme/up/+', 'thingdesk/acme/down/+']),
        [128, 128, 128],
      );
    });

    test('an integration may not publish at all', async () => {
      const client = await connect(integration);
      await assertPublishRefused(
        client,
        protocolVersion,
        'thingdesk/acme/up/GW-X',
        JSON.stringify({ tsmId: 1110, tsmTs: 1, tsmTuid: 'ACCESS-3', batl: 1 }),
      );
      assert.equal(await server.app.store.things.get('ACCESS-3'), undefined);
    });

    test("the other organization's gateway sees nothing of acme's downlinks", async () => {
      const acme = await connect(gateway);
      const other = await connect({ username: 'other-gateway', password: 'other-gateway-password' });
      const acmeInbox = collectMessages(acme);
      const otherInbox = collectMessages(other);
      await acme.subscribeAsync('thingdesk/acme/down/+', { qos: 1 });
      assert.deepEqual(await grantedQos(other, ['thingdesk/acme/down/+']), [128]);
      await server.app.mqtt.publish('thingdesk/acme/down/ACCESS-1', '[{"tsmId":1500}]', 1);
      await acmeInbox.waitFor(1);
      await eventually(() => (acmeInbox.received.length === 1 ? true : undefined));
      assert.equal(otherInbox.received.length, 0);
    });
  });
}
