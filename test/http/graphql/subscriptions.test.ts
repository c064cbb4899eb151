import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createOrganization, createUser } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const messagesSubscription = 'subscription($tuid: ID) { messages(tuid: $tuid) }';

/** Collects what a subscription delivers until `count` items arrived (or fails after a timeout). */
function collector<T>() {
  const items: T[] = [];
  let wake: (() => void) | undefined;
  return {
    items,
    push(item: T) {
      items.push(item);
      wake?.();
    },
    async waitFor(count: number, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (items.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} items, got ${items.length}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
    },
  };
}

describe('GraphQL subscriptions', () => {
  let server: TestApp;
  let viewerToken: string;
  let rivalToken: string;
  before(async () => {
    server = await startTestApp();
    const deps = { store: server.app.store, clock: server.app.clock };
    await createUser(deps, { organizationId: 'acme', email: 'viewer@acme.test', password: 'viewer-password', role: 'Viewer' });
    await createOrganization(deps, { name: 'Rival', id: 'rival' });
    await createUser(deps, { organizationId: 'rival', email: 'rival@rival.test', password: 'rival-password', role: 'Manager' });
    const viewer = new GraphqlClient(server);
    await viewer.login({ email: 'viewer@acme.test', password: 'viewer-password' });
    viewerToken = viewer.accessToken!;
    const rival = new GraphqlClient(server);
    await rival.login({ email: 'rival@rival.test', password: 'rival-password', organizationName: 'Rival' });
    rivalToken = rival.accessToken!;
  });
  after(() => server?.stop());

  const wsUrl = () => server.url(server.config.graphqlPath).replace(/^http/, 'ws');

  test('over WebSocket (graphql-transport-ws): a live uplink arrives, only for the organization and the tuid asked', async () => {
    const client = createWsClient({
      url: wsUrl(),
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${viewerToken}` },
      retryAttempts: 0,
      lazy: false,
    });
    const rival = createWsClient({
      url: wsUrl(),
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${rivalToken}` },
      retryAttempts: 0,
    });
    const received = collector<unknown>();
    const rivalReceived = collector<unknown>();
    try {
      const stop = client.subscribe(
        { query: messagesSubscription, variables: { tuid: 'SUB-1' } },
        { next: (r) => received.push(r), error: (e) => received.push({ error: e }), complete: () => undefined },
      );
      const stopRival = rival.subscribe(
        { query: messagesSubscription },
        { next: (r) => rivalReceived.push(r), error: () => undefined, complete: () => undefined },
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      await publishUplinks(server, [
        { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'SUB-2', batl: 1 },
        { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_001, tsmTuid: 'SUB-1', batl: 77 },
      ]);
      await received.waitFor(1);
      assert.deepEqual(received.items[0], {
        data: { messages: { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_001, tsmTuid: 'SUB-1', batl: 77, deploymentGroupId: 'unassigned' } },
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(received.items.length, 1, 'the other thing was filtered out');
      assert.equal(rivalReceived.items.length, 0, 'another organization sees nothing');
      stop();
      stopRival();
    } finally {
      await client.dispose();
      await rival.dispose();
    }
  });

  test('over WebSocket a connection without a valid token is refused', async () => {
    const client = createWsClient({
      url: wsUrl(),
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: 'Bearer not-a-token' },
      retryAttempts: 0,
    });
    const outcome = await new Promise<unknown>((resolve) => {
      client.subscribe({ query: messagesSubscription }, { next: resolve, error: resolve, complete: () => resolve('complete') });
    });
    await client.dispose();
    assert.equal((outcome as { code?: number }).code, 4403);
  });

  test('over SSE (graphql-sse): a live uplink arrives with an access token', async () => {
    const client = createSseClient({
      url: server.url(server.config.graphqlPath),
      headers: { authorization: `Bearer ${viewerToken}` },
      retryAttempts: 0,
      fetchFn: fetch,
    });
    const received = collector<unknown>();
    try {
      const stop = client.subscribe(
        { query: messagesSubscription, variables: { tuid: 'SSE-1' } },
        { next: (r) => received.push(r), error: (e) => received.push({ error: String(e) }), complete: () => undefined },
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await publishUplinks(server, [{ tsmId: 12101, tsmEv: 10, tsmTs: 1_790_000_002, tsmTuid: 'SSE-1', hall: 1 }]);
      await received.waitFor(1);
      assert.deepEqual(received.items[0], {
        data: { messages: { tsmId: 12101, tsmEv: 10, tsmTs: 1_790_000_002, tsmTuid: 'SSE-1', hall: 1, deploymentGroupId: 'unassigned' } },
      });
      stop();
    } finally {
      client.dispose();
    }
  });

  test('over SSE without a token the subscription is refused with UNAUTHENTICATED', async () => {
    const response = await fetch(server.url(server.config.graphqlPath), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: messagesSubscription }),
    });
    const text = await response.text();
    assert.match(text, /UNAUTHENTICATED/);
    assert.doesNotMatch(text, /"tsmId"/);
  });
});
