/**
 * The embedded broker against a hostile or careless client (issue 12, items 2, 4, 7 and 12): client ids and
 * sessions belong to the credential that first used them, oversized packets are refused before they are read,
 * revoked credentials lose their connections, and uplinks are never retained.
 */
import assert from 'node:assert/strict';
import { connect as tcpConnect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import mqtt, { type IClientOptions, type IConnackPacket, type MqttClient } from 'mqtt';
import { createMqttCredential, createOrganization, revokeMqttCredential } from '../../src/domain/identity/identity-service.js';
import { cleanupStores } from '../helpers/databases.js';
import { closeMqttClients, collectMessages, connectMqtt, eventually } from '../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);
after(closeMqttClients);

const acme = { username: testBootstrap.BOOTSTRAP_MQTT_USERNAME, password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD };
const other = { username: 'other-gateway', password: 'other-gateway-password' };
const refusedId = /Identifier rejected|Client Identifier not valid/i;

function closedPromise(client: MqttClient): Promise<void> {
  return new Promise((resolve) => client.once('close', () => resolve()));
}

for (const protocolVersion of [4, 5] as const) {
  describe(`embedded broker against hostile clients, MQTT ${protocolVersion === 4 ? '3.1.1' : '5'}`, () => {
    let server: TestApp;
    const connect = (options: IClientOptions) => connectMqtt(server.mqttUrl, { protocolVersion, ...options });
    before(async () => {
      server = await startTestApp({ MQTT_CREDENTIAL_RECHECK_S: '1' });
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Other', id: 'other' });
      await createMqttCredential(deps, { organizationId: 'other', kind: 'gateway', ...other });
    });
    after(() => server?.stop());

    test('another organization cannot resume a persistent session by its client id, nor read its queued commands', async () => {
      const clientId = `shared-id-${protocolVersion}`;
      // MQTT 5 keeps a session past its connection only with a Session Expiry Interval.
      const persistent = protocolVersion === 5 ? { clean: false, properties: { sessionExpiryInterval: 3600 } } : { clean: false };
      const owner = await connect({ ...acme, clientId, ...persistent });
      await owner.subscribeAsync('thingdesk/acme/down/+', { qos: 1 });
      await owner.endAsync();
      await server.app.mqtt.publish('thingdesk/acme/down/SESSION-1', '{"secret":"acme"}', 1);

      await assert.rejects(connect({ ...other, clientId, ...persistent }), refusedId);

      const back = mqtt.connect(server.mqttUrl, { protocolVersion, ...acme, clientId, ...persistent, reconnectPeriod: 0 });
      try {
        const messages = collectMessages(back);
        const connack = await new Promise<IConnackPacket>((resolve, reject) => {
          back.once('connect', resolve);
          back.once('error', reject);
        });
        assert.equal(connack.sessionPresent, true, 'the owner keeps its session');
        await messages.waitFor(1);
        assert.deepEqual(messages.received, [{ topic: 'thingdesk/acme/down/SESSION-1', payload: '{"secret":"acme"}' }]);
      } finally {
        await back.endAsync(true);
      }
    });

    test('another organization cannot kick a connected client off by reusing its client id; the same credential can', async () => {
      const clientId = `live-id-${protocolVersion}`;
      const victim = await connect({ ...acme, clientId });
      await assert.rejects(connect({ ...other, clientId }), refusedId);
      assert.equal(victim.connected, true);
      await victim.publishAsync(
        'thingdesk/acme/up/GW-LIVE',
        JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: `LIVE-${protocolVersion}`, tsmGw: 'GW-LIVE', batl: 70 }]),
        { qos: 1 },
      );
      assert.equal(await server.app.store.messages.count(`LIVE-${protocolVersion}`), 1);

      const closed = closedPromise(victim);
      await connect({ ...acme, clientId });
      await closed;
    });

    test('a clean session frees its client id when it ends', async () => {
      const clientId = `clean-id-${protocolVersion}`;
      const first = await connect({ ...acme, clientId, clean: true });
      await first.endAsync();
      await eventually(
        async () => {
          try {
            await connect({ ...other, clientId, clean: true });
            return true;
          } catch {
            return undefined;
          }
        },
        3000,
        'the client id to be free',
      );
    });

    test('a revoked credential loses its live connections at once and cannot reconnect', async () => {
      const username = `revoke-now-${protocolVersion}`;
      const deps = { store: server.app.store, clock: server.app.clock, events: server.app.events };
      await createMqttCredential(deps, { organizationId: 'acme', kind: 'gateway', username, password: 'revoke-now-password' });
      const client = await connect({ username, password: 'revoke-now-password' });
      const closed = closedPromise(client);
      await revokeMqttCredential(deps, { username });
      await closed;
      await assert.rejects(connect({ username, password: 'revoke-now-password' }), /Bad user ?name or password|Not authorized/i);
    });

    test('a credential revoked elsewhere (another instance, the CLI) loses its connections within the recheck interval', async () => {
      const username = `revoke-elsewhere-${protocolVersion}`;
      // No event bus: as the CLI or another instance revokes, only the shared store knows.
      const storeOnly = { store: server.app.store, clock: server.app.clock };
      await createMqttCredential(storeOnly, { organizationId: 'acme', kind: 'gateway', username, password: 'revoke-elsewhere-password' });
      const client = await connect({ username, password: 'revoke-elsewhere-password' });
      const closed = closedPromise(client);
      await revokeMqttCredential(storeOnly, { username });
      await closed;
    });

    test('a retained uplink is stored but not kept by the broker', async () => {
      const client = await connect(acme);
      const tuid = `RETAIN-${protocolVersion}`;
      await client.publishAsync(
        'thingdesk/acme/up/GW-R',
        JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: tuid, tsmGw: 'GW-R', batl: 50 }]),
        { qos: 1, retain: true },
      );
      assert.equal(await server.app.store.messages.count(tuid), 1);
      const broker = (
        server.app.mqtt as unknown as { broker: { persistence: { createRetainedStreamCombi(patterns: string[]): AsyncIterable<unknown> } } }
      ).broker;
      const retained: unknown[] = [];
      for await (const packet of broker.persistence.createRetainedStreamCombi(['thingdesk/#'])) retained.push(packet);
      assert.deepEqual(retained, []);
    });

    test('a packet over MQTT_MAX_PACKET_SIZE is refused; one under it is taken', async () => {
      const client = await connect(acme);
      const message = JSON.stringify({
        tsmId: 1110,
        tsmEv: 10,
        tsmTs: 1_790_000_000,
        tsmTuid: `BIG-${protocolVersion}`,
        tsmGw: 'GW-B',
        batl: 40,
      });
      // JSON allows any amount of whitespace: the size is the packet's, the content one small message.
      await client.publishAsync('thingdesk/acme/up/GW-B', `[${message}${' '.repeat(200_000)}]`, { qos: 1 });
      assert.equal(await server.app.store.messages.count(`BIG-${protocolVersion}`), 1);

      const closed = closedPromise(client);
      client.publish('thingdesk/acme/up/GW-B', `[${message.replace('BIG-', 'HUGE-')}${' '.repeat(300_000)}]`, { qos: 1 });
      await closed;
      assert.equal(await server.app.store.messages.count(`HUGE-${protocolVersion}`), 0);
    });

    if (protocolVersion === 5)
      test('MQTT 5 clients are told the Maximum Packet Size in the CONNACK', async () => {
        const client = mqtt.connect(server.mqttUrl, { protocolVersion, reconnectPeriod: 0, ...acme });
        try {
          const connack = await new Promise<IConnackPacket>((resolve) => client.once('connect', resolve));
          assert.equal(connack.properties?.maximumPacketSize, 262_144);
        } finally {
          await client.endAsync(true);
        }
      });
  });
}

describe('embedded broker: unauthenticated connections', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp({ MQTT_CONNECT_TIMEOUT_S: '1' });
  });
  after(() => server?.stop());

  /** Opens a raw TCP connection, writes `header`, then trickles `total` bytes; resolves with what was written when the server closes. */
  function trickle(header: Buffer, total: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const socket = tcpConnect(Number(new URL(server.mqttUrl).port), '127.0.0.1');
      let written = 0;
      let timer: NodeJS.Timeout | undefined;
      const chunk = Buffer.alloc(64 * 1024, 0x41);
      socket.once('connect', () => {
        socket.write(header);
        timer = setInterval(() => {
          if (written >= total) return;
          socket.write(chunk);
          written += chunk.length;
        }, 5);
      });
      socket.on('error', () => undefined);
      socket.once('close', () => {
        clearInterval(timer);
        resolve(written);
      });
      setTimeout(() => reject(new Error(`still open after ${written} bytes`)), 8000).unref();
    });
  }

  test('a CONNECT announcing 255 MB is closed before its body is read', async () => {
    // Fixed header: CONNECT, remaining length 268,435,455 (the MQTT maximum), then body bytes.
    const written = await trickle(Buffer.from([0x10, 0xff, 0xff, 0xff, 0x7f]), 64 * 1024 * 1024);
    assert.ok(written < 4 * 1024 * 1024, `the server read ${written} bytes before closing`);
  });

  test('a connection that never completes its CONNECT is closed after MQTT_CONNECT_TIMEOUT_S', async () => {
    const written = await trickle(Buffer.alloc(0), 0);
    assert.equal(written, 0);
  });
});
