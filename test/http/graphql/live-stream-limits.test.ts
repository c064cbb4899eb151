/** Live GraphQL streams are bounded: subscriptions capped per connection and per user, slow readers disconnected. */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { CapturedLogs } from '../../helpers/captured-logs.js';
import { cleanupStores } from '../../helpers/databases.js';
import { closedWithin, type LiveSocket } from '../../helpers/live-socket.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';
import { liveSocket, messages, signedInInstaller, uplink } from './live-stream-helpers.js';

after(cleanupStores);
after(closeMqttClients);

describe('subscription caps (issue 12 item 5)', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp({ GRAPHQL_SUBSCRIPTIONS_PER_CONNECTION: '3', GRAPHQL_SUBSCRIPTIONS_PER_USER: '5' });
  });
  after(() => server?.stop());

  const refusedIds = (socket: LiveSocket) =>
    socket.received.filter((m) => m.type === 'error' && JSON.stringify(m.payload).includes('RATE_LIMITED')).map((m) => m.id);

  test('past the cap per connection and per user a subscribe is refused with RATE_LIMITED; a completed one frees its slot', async () => {
    const { client } = await signedInInstaller(server);
    const first = await liveSocket(server, client.accessToken!);
    for (const id of ['a', 'b', 'c', 'd']) first.subscribe(id, messages, { tuid: 'CAP-1' });
    await first.waitUntil(() => refusedIds(first).length === 1);
    assert.deepEqual(refusedIds(first), ['d']);
    assert.match(JSON.stringify(first.of('d')), /GRAPHQL_SUBSCRIPTIONS_PER_CONNECTION/);

    const second = await liveSocket(server, client.accessToken!);
    for (const id of ['e', 'f', 'g']) second.subscribe(id, messages, { tuid: 'CAP-1' });
    await second.waitUntil(() => refusedIds(second).length === 1);
    assert.deepEqual(refusedIds(second), ['g']);
    assert.match(JSON.stringify(second.of('g')), /GRAPHQL_SUBSCRIPTIONS_PER_USER/);

    first.complete('a');
    await new Promise((resolve) => setTimeout(resolve, 100));
    second.subscribe('h', messages, { tuid: 'CAP-1' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await publishUplinks(server, [uplink('CAP-1', 1_790_000_030)]);
    await second.waitUntil(() => ['e', 'f', 'h'].every((id) => second.of(id).some((m) => m.type === 'next')));
    await first.waitUntil(() => ['b', 'c'].every((id) => first.of(id).some((m) => m.type === 'next')));
    assert.equal(first.of('a').filter((m) => m.type === 'next').length, 0, 'the completed subscription got nothing');
    first.close();
    second.close();
  });

  test('closing a connection frees all its slots', async () => {
    const { client } = await signedInInstaller(server);
    const first = await liveSocket(server, client.accessToken!);
    for (const id of ['a', 'b', 'c']) first.subscribe(id, messages);
    await new Promise((resolve) => setTimeout(resolve, 100));
    first.close();
    await first.closed;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await liveSocket(server, client.accessToken!);
    for (const id of ['x', 'y', 'z']) second.subscribe(id, messages);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(refusedIds(second), []);
    second.close();
  });
});

describe('a reader that does not keep up is closed, not buffered for (issue 12 item 5)', () => {
  let server: TestApp;
  const logs = new CapturedLogs('debug');
  before(async () => {
    server = await startTestApp({ GRAPHQL_SUBSCRIPTION_QUEUE: '2000', GRAPHQL_SEND_BUFFER_BYTES: '65536' }, { logger: logs.logger });
  });
  after(() => server?.stop());

  test('a WebSocket that stops reading is dropped while a reading one gets every message', async () => {
    const slowUser = await signedInInstaller(server);
    const readerUser = await signedInInstaller(server);
    const slow = await liveSocket(server, slowUser.client.accessToken!);
    const reader = await liveSocket(server, readerUser.client.accessToken!);
    for (const id of ['1', '2', '3', '4']) slow.subscribe(id, messages);
    reader.subscribe('r', messages);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The client's TCP socket stops reading: the server's writes fill the kernel buffers, then its own.
    const tcp = (slow.socket as unknown as { _socket: import('node:net').Socket })._socket;
    tcp.pause();

    const uplinks = 8;
    const perUplink = 1000;
    for (let u = 0; u < uplinks; u++) {
      await publishUplinks(
        server,
        Array.from({ length: perUplink }, (_, i) => uplink(`SLOW-${i}`, 1_790_100_000 + u)),
      );
    }
    await reader.waitUntil(() => reader.of('r').length >= uplinks * perUplink, 20_000);
    tcp.resume();
    const closed = await closedWithin(slow, 10_000);
    assert.ok(closed, 'the server dropped the reader that did not keep up');
    assert.ok(slow.received.filter((m) => m.type === 'next').length < 4 * uplinks * perUplink, 'it did not get everything buffered for it');
    // Its subscriptions' sends then fail on a closed socket: the client's leaving, not a resolver failure.
    assert.deepEqual(logs.errors(), []);
    const health = await fetch(server.url('/healthz'));
    assert.equal(health.status, 200);
    reader.close();
  });

  test('an SSE stream that stops reading is ended while a reading WebSocket gets every message', async () => {
    const slowUser = await signedInInstaller(server);
    const readerUser = await signedInInstaller(server);
    const reader = await liveSocket(server, readerUser.client.accessToken!);
    reader.subscribe('r', messages);
    const target = new URL(server.url(server.config.graphqlPath));
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const request = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'text/event-stream',
            authorization: `Bearer ${slowUser.client.accessToken}`,
          },
        },
        resolve,
      );
      request.on('error', reject);
      request.end(JSON.stringify({ query: messages }));
    });
    assert.equal(response.statusCode, 200);
    const ended = new Promise<void>((resolve) => {
      response.once('close', resolve);
      response.once('error', () => resolve());
    });
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 100));

    const before = reader.of('r').length;
    // Enough to fill the loopback socket's kernel buffers (several megabytes) and then the subscription's queue.
    const uplinks = 50;
    const perUplink = 1000;
    for (let u = 0; u < uplinks; u++) {
      await publishUplinks(
        server,
        Array.from({ length: perUplink }, (_, i) => uplink(`SSE-SLOW-${i}`, 1_790_200_000 + u)),
      );
    }
    await reader.waitUntil(() => reader.of('r').length - before >= uplinks * perUplink, 30_000);
    response.resume();
    response.on('data', () => undefined);
    const outcome = await Promise.race([ended.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('open'), 10_000))]);
    assert.equal(outcome, 'ended', 'the server ended the stream of the reader that did not keep up');
    reader.close();
  });
});
