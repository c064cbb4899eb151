import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMqttCredential, createOrganization, revokeMqttCredential } from '../../src/domain/identity/identity-service.js';
import { cleanupStores } from '../helpers/databases.js';
import { closeMqttClients, collectMessages, connectMqtt, eventually, grantedQos } from '../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);
after(closeMqttClients);

describe('embedded broker: authentication and access rules (SPEC section 6)', () => {
  let server: TestApp;
  const gateway = { username: testBootstrap.BOOTSTRAP_MQTT_USERNAME, password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD };
  const integration = { username: 'acme-feed', password: 'acme-feed-password' };
  before(async () => {
    server = await startTestApp();
    const deps = { store: server.app.store, clock: server.app.clock };
    await createMqttCredential(deps, { organizationId: 'acme', kind: 'integration', ...integration });
    await createOrganization(deps, { name: 'Other', id: 'other' });
    await createMqttCredential(deps, { organizationId: 'other', kind: 'gateway', username: 'other-gateway', password: 'other-gateway-password' });
    await createMqttCredential(deps, { organizationId: 'acme', kind: 'gateway', username: 'revoked-gateway', password: 'revoked-password' });
    await revokeMqttCredential(deps, { username: 'revoked-gateway' });
  });
  after(() => server?.stop());

  test('a known credential connects; no, wrong and revoked credentials are refused', async () => {
    await connectMqtt(server.mqttUrl, gateway);
    await assert.rejects(connectMqtt(server.mqttUrl), /Bad username or password|Not authorized/i);
    await assert.rejects(connectMqtt(server.mqttUrl, { username: gateway.username, password: 'wrong' }), /Bad username or password/i);
    await assert.rejects(connectMqtt(server.mqttUrl, { username: 'nobody', password: 'whatever1' }), /Bad username or password/i);
    await assert.rejects(connectMqtt(server.mqttUrl, { username: 'revoked-gateway', password: 'revoked-password' }), /Bad username or password/i);
  });

  test('a gateway may publish to its organization\'s up topic (acknowledged and stored) but not to another\'s', async () => {
    const client = await connectMqtt(server.mqttUrl, gateway);
    const message = { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'ACCESS-1', tsmGw: 'GW-A', batl: 80 };
    await client.publishAsync('thingdesk/acme/up/GW-A', JSON.stringify([message]), { qos: 1 });
    assert.equal(await server.app.store.messages.count('ACCESS-1'), 1, 'committed before the PUBACK');

    const intruder = await connectMqtt(server.mqttUrl, gateway);
    const closed = new Promise<void>((resolve) => intruder.once('close', () => resolve()));
    intruder.publish('thingdesk/other/up/GW-A', JSON.stringify([{ ...message, tsmTuid: 'ACCESS-2' }]), { qos: 1 });
    await closed;
    assert.equal(await server.app.store.things.get('ACCESS-2'), undefined);
  });

  test('a gateway may not publish to a down topic', async () => {
    const client = await connectMqtt(server.mqttUrl, gateway);
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.publish('thingdesk/acme/down/ACCESS-1', '[]', { qos: 1 });
    await closed;
  });

  test('a gateway may subscribe to its organization\'s down topics only', async () => {
    const client = await connectMqtt(server.mqttUrl, gateway);
    assert.deepEqual(await grantedQos(client, ['thingdesk/acme/down/+', 'thingdesk/acme/down/T-1']), [1, 1]);
    assert.deepEqual(await grantedQos(client, ['thingdesk/other/down/+', 'thingdesk/acme/up/+', 'thingdesk/acme/data/#', '#']), [128, 128, 128, 128]);
  });

  test('an integration may subscribe to its organization\'s data feed and alerts, not to others\' or to uplinks', async () => {
    const client = await connectMqtt(server.mqttUrl, integration);
    assert.deepEqual(await grantedQos(client, ['thingdesk/acme/data/#', 'thingdesk/acme/alerts']), [1, 1]);
    assert.deepEqual(await grantedQos(client, ['thingdesk/other/data/#', 'thingdesk/acme/up/+', 'thingdesk/acme/down/+']), [128, 128, 128]);
  });

  test('an integration may not publish at all', async () => {
    const client = await connectMqtt(server.mqttUrl, integration);
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.publish('thingdesk/acme/up/GW-X', JSON.stringify({ tsmId: 1110, tsmTs: 1, tsmTuid: 'ACCESS-3', batl: 1 }), { qos: 1 });
    await closed;
    assert.equal(await server.app.store.things.get('ACCESS-3'), undefined);
  });

  test('the other organization\'s gateway sees nothing of acme\'s downlinks', async () => {
    const acme = await connectMqtt(server.mqttUrl, gateway);
    const other = await connectMqtt(server.mqttUrl, { username: 'other-gateway', password: 'other-gateway-password' });
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
