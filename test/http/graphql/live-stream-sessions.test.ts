/** Live GraphQL streams belong to their session: ended with it, and every subscribe checked against it. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { closedWithin } from '../../helpers/live-socket.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';
import { liveSocket, messages, sessionIdOf, signedInInstaller, uplink } from './live-stream-helpers.js';

after(cleanupStores);
after(closeMqttClients);

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
