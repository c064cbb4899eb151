/**
 * Abusive reconnect loops on the embedded broker (issue 12, the hostile soak): an address that keeps sending
 * oversized packets before authenticating is held in a tarpit, and so is a credential that sends them after.
 */
import assert from 'node:assert/strict';
import { connect as tcpConnect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createMqttCredential } from '../../src/domain/identity/identity-service.js';
import { cleanupStores } from '../helpers/databases.js';
import { closeMqttClients, connectMqtt } from '../helpers/mqtt-clients.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);
after(closeMqttClients);

/** A raw connection from `localAddress` that sends a CONNECT announcing 255 MB; resolves with how long until the server closed it. */
function oversizedConnect(port: number, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = tcpConnect({ port, host: '127.0.0.1', localAddress });
    socket.on('error', () => undefined);
    socket.once('connect', () => socket.write(Buffer.from([0x10, 0xff, 0xff, 0xff, 0x7f, ...Buffer.alloc(1024)])));
    socket.once('close', () => resolve(Date.now() - started));
    setTimeout(() => reject(new Error('still open after 10 s')), 10_000).unref();
  });
}

describe('embedded broker: abusive reconnect loops', () => {
  let server: TestApp;
  let port: number;
  before(async () => {
    server = await startTestApp();
    port = Number(new URL(server.mqttUrl).port);
  });
  after(() => server?.stop());

  test('after 10 oversized packets before CONNECT, that address waits 2 s for each refusal; other addresses do not', async () => {
    for (let i = 0; i < 10; i++) assert.ok((await oversizedConnect(port, '127.0.0.3')) < 1000, `attempt ${i} closed at once`);
    const held = await oversizedConnect(port, '127.0.0.3');
    assert.ok(held >= 1800 && held < 5000, `the 11th attempt was held ${held} ms`);
    assert.ok((await oversizedConnect(port, '127.0.0.4')) < 1000, 'another address is answered at once');
    const gateway = await connectMqtt(server.mqttUrl, { username: 'acme-gateway', password: 'acme-gateway-password', reconnectPeriod: 0 });
    assert.ok(gateway.connected, 'a gateway on another address connects as usual');
    await gateway.endAsync();
  });

  test('a credential that sent 10 oversized packets waits 2 s for each CONNECT answer; other credentials do not', async () => {
    const deps = { store: server.app.store, clock: server.app.clock };
    await createMqttCredential(deps, {
      organizationId: 'acme',
      kind: 'gateway',
      username: 'oversize-gw',
      password: 'oversize-gateway-password',
    });
    const oversize = { username: 'oversize-gw', password: 'oversize-gateway-password', reconnectPeriod: 0 };
    for (let i = 0; i < 10; i++) {
      const client = await connectMqtt(server.mqttUrl, oversize);
      const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
      client.publish('thingdesk/acme/up/GW-BIG', Buffer.alloc(300 * 1024, 0x20), { qos: 1 });
      await closed;
      client.end(true);
    }
    let started = performance.now();
    await (await connectMqtt(server.mqttUrl, oversize)).endAsync();
    const held = performance.now() - started;
    assert.ok(held >= 1800, `the credential's CONNECT was answered after ${Math.round(held)} ms`);
    started = performance.now();
    await (
      await connectMqtt(server.mqttUrl, { username: 'acme-gateway', password: 'acme-gateway-password', reconnectPeriod: 0 })
    ).endAsync();
    assert.ok(performance.now() - started < 1500, 'another credential is answered without waiting');
  });
});
