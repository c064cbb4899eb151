import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createUser } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { closedWithin, LiveSocket } from '../../helpers/live-socket.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const messages = 'subscription($tuid: ID) { messages(tuid: $tuid) }';
const password = 'installer-password';

let userCount = 0;
/** A new Installer of Acme, signed in: its client (tokens) and user id. */
async function signedInInstaller(server: TestApp): Promise<{ client: GraphqlClient; userId: string }> {
  const email = `installer-${++userCount}@acme.test`;
  const user = await createUser({ store: server.app.store, clock: server.app.clock }, { organizationId: 'acme', email, password, role: 'Installer' });
  const client = new GraphqlClient(server);
  await client.login({ email, password });
  return { client, userId: user.id };
}

function sessionIdOf(accessToken: string): string {
  return (JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()) as { sid: string }).sid;
}

async function liveSocket(server: TestApp, token: string): Promise<LiveSocket> {
  const socket = new LiveSocket(server, token);
  await socket.ready;
  return socket;
}

const uplink = (tuid: string, ts: number) => ({ tsmId: 1110, tsmEv: 10, tsmTs: ts, tsmTuid: tuid, batl: 50 });

describe('live streams end with their session (issue 12 item 3)', () => {
  let server: TestApp;
  let manager: GraphqlClient;
  before(async () => {
    server = await startTestApp({ GRAPHQL_SESSION_RECHECK_S: '1' });
    manager = new GraphqlClient(server);
    await manager.login();
  });
  after(() => server?.stop());

  test('logout closes the WebSocket with 4401 at once, and nothing more is delivered', async () => {
    const { client } = await signedInInstaller(server);
    const socket = await liveSocket(server, client.accessToken!);
    socket.subscribe('1', messages, { tuid: 'LIVE-1' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await publishUplinks(server, [uplink('LIVE-1', 1_790_000_000)]);
    await socket.waitUntil(() => socket.of('1').length === 1);

    const logout = await client.request('mutation { logout { success } }');
    assert.equal(logout.body.data?.logout?.success, true);
    const closed = await closedWithin(socket, 500);
    assert.equal(closed?.code, 4401, 'closed as Unauthorized within half a second');
    assert.match(closed!.reason, /session has ended \(logout\)/);
    await publishUplinks(server, [uplink('LIVE-1', 1_790_000_001)]);
    assert.equal(socket.of('1').length, 1);
  });

  test('refresh token reuse ends the session and its WebSocket (4401)', async () => {
    const { client } = await signedInInstaller(server);
    const socket = await liveSocket(server, client.accessToken!);
    socket.subscribe('1', messages);
    const refresh = 'mutation($input: RefreshTokenInput!) { refreshToken(refreshTokenInput: $input) { accessToken } }';
    const input = { organizationId: client.organizationId, refreshToken: client.refreshToken };
    assert.ok((await client.request(refresh, { input }, { token: null })).body.data?.refreshToken);
    assert.equal((await client.request(refresh, { input }, { token: null })).body.errors?.[0]?.extensions?.code, 'UNAUTHENTICATED');
    assert.equal((await closedWithin(socket, 500))?.code, 4401);
  });

  test('a role change closes with 4403 and a deleted user with 4401', async () => {
    const demoted = await signedInInstaller(server);
    const deleted = await signedInInstaller(server);
    const demotedSocket = await liveSocket(server, demoted.client.accessToken!);
    const deletedSocket = await liveSocket(server, deleted.client.accessToken!);
    demotedSocket.subscribe('1', messages);
    deletedSocket.subscribe('1', messages);

    const role = await manager.request('mutation($id: ID!) { setUserRole(userId: $id, role: VIEWER) { role } }', { id: demoted.userId });
    assert.equal(role.body.errors, undefined, JSON.stringify(role.body.errors));
    const demotedClose = await closedWithin(demotedSocket, 500);
    assert.equal(demotedClose?.code, 4403);
    assert.match(demotedClose!.reason, /role changed/);

    const removal = await manager.request('mutation($id: ID!) { deleteUser(userId: $id) }', { id: deleted.userId });
    assert.equal(removal.body.data?.deleteUser, true);
    assert.equal((await closedWithin(deletedSocket, 500))?.code, 4401);
  });

  test('a session ended on another instance (only in the store) closes within GRAPHQL_SESSION_RECHECK_S', async () => {
    const { client } = await signedInInstaller(server);
    const socket = await liveSocket(server, client.accessToken!);
    socket.subscribe('1', messages);
    await server.app.store.sessions.end(sessionIdOf(client.accessToken!), Date.now(), 'logout');
    const closed = await closedWithin(socket, 3000);
    assert.equal(closed?.code, 4401);
  });

  test('logout ends an SSE stream with UNAUTHENTICATED, then complete', async () => {
    const { client } = await signedInInstaller(server);
    const response = await fetch(server.url(server.config.graphqlPath), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${client.accessToken}` },
      body: JSON.stringify({ query: messages, variables: { tuid: 'SSE-LIVE' } }),
    });
    assert.equal(response.status, 200);
    const text = response.text();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await publishUplinks(server, [uplink('SSE-LIVE', 1_790_000_010)]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await client.request('mutation { logout { success } }');
    const body = await Promise.race([text, new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 1000))]);
    assert.notEqual(body, 'still open', 'the stream ended');
    const events = body.split('\n\n').filter((chunk) => chunk.startsWith('event:'));
    assert.equal(events.length, 3, body);
    assert.match(events[0]!, /"tsmTuid":"SSE-LIVE"/);
    assert.match(events[1]!, /"code":"UNAUTHENTICATED"/);
    assert.equal(events[2], 'event: complete\ndata:');
  });
});

describe('each subscribe is checked against the session as it is now (issue 12 item 3)', () => {
  let server: TestApp;
  before(async () => {
    // No periodic check during the test: the subscribe itself must notice.
    server = await startTestApp({ GRAPHQL_SESSION_RECHECK_S: '3600' });
  });
  after(() => server?.stop());

  test('a subscribe on a socket whose session ended elsewhere is refused and the socket closes with 4401', async () => {
    const { client } = await signedInInstaller(server);
    const socket = await liveSocket(server, client.accessToken!);
    await server.app.store.sessions.end(sessionIdOf(client.accessToken!), Date.now(), 'logout');
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the one-second session cache
    socket.subscribe('late', messages);
    const closed = await closedWithin(socket, 1000);
    assert.equal(closed?.code, 4401);
    await publishUplinks(server, [uplink('LATE-1', 1_790_000_020)]);
    assert.equal(socket.of('late').filter((m) => m.type === 'next').length, 0);
  });
});

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
  before(async () => {
    server = await startTestApp({ GRAPHQL_SUBSCRIPTION_QUEUE: '2000', GRAPHQL_SEND_BUFFER_BYTES: '65536' });
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
      await publishUplinks(server, Array.from({ length: perUplink }, (_, i) => uplink(`SLOW-${i}`, 1_790_100_000 + u)));
    }
    await reader.waitUntil(() => reader.of('r').length >= uplinks * perUplink, 20_000);
    tcp.resume();
    const closed = await closedWithin(slow, 10_000);
    assert.ok(closed, 'the server dropped the reader that did not keep up');
    assert.ok(slow.received.filter((m) => m.type === 'next').length < 4 * uplinks * perUplink, 'it did not get everything buffered for it');
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
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${slowUser.client.accessToken}` } },
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
      await publishUplinks(server, Array.from({ length: perUplink }, (_, i) => uplink(`SSE-SLOW-${i}`, 1_790_200_000 + u)));
    }
    await reader.waitUntil(() => reader.of('r').length - before >= uplinks * perUplink, 30_000);
    response.resume();
    response.on('data', () => undefined);
    const outcome = await Promise.race([ended.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('open'), 10_000))]);
    assert.equal(outcome, 'ended', 'the server ended the stream of the reader that did not keep up');
    reader.close();
  });
});
