/**
 * Property-based fuzzing of every REST endpoint (issue 8): random and malformed path parameters, query strings,
 * headers and bodies. For every response: no 5xx, the error shape of SPEC section 3, a success is `{data}`; a
 * rejected write and every read leave the store exactly as it was; the server stays healthy.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { cleanupStores } from '../helpers/databases.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { RestClient } from '../helpers/rest-client.js';
import { StoreSnapshotter, settledSnapshot } from '../helpers/store-snapshot.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';
import { assertProperty } from './fuzz-settings.js';
import { assertRestResponse, assertStoreUnchanged, describeRequest, type HttpResult } from './invariants.js';
import { endpoints, seededGroups } from './rest-endpoints.js';
import { strayRequest, type FuzzRequest } from './rest-requests.js';

after(cleanupStores);
after(closeMqttClients);

const t0 = 1_790_000_000;

describe('REST fuzzing (issue 8)', () => {
  let server: TestApp;
  let rest: RestClient;
  let snapshots: StoreSnapshotter;
  let graphqlToken: string;
  let restToken = { value: '', fetchedAt: 0 };

  before(async () => {
    // Rate limits must not answer for the fuzzer; the alert engine must not write while snapshots are compared.
    server = await startTestApp({
      RATE_LIMIT_PER_TOKEN: '10000000',
      RATE_LIMIT_PER_ADDRESS: '10000000',
      ALERT_INTERVAL_S: String(31 * 24 * 3600),
    });
    rest = new RestClient(server);
    await publishUplinks(server, [
      { tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'FZ-1', batl: 42.4 },
      { tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'FZ-2', batl: 9 },
      { tsmId: 1100, tsmEv: 10, tsmTs: t0, tsmTuid: 'FZ-3', swVersion: '1.2.3' },
      { tsmId: 1210, tsmEv: 10, tsmTs: t0 + 1, tsmTuid: 'FZ-3', lat: 60.1, lon: 24.9 },
    ]);
    for (const groupId of seededGroups)
      assert.equal((await rest.post('/groups', { group_id: groupId, group_description: 'seeded' })).status, 200);
    assert.equal((await rest.post('/things/FZ-2/group', { group_id: 'fuzz-group' })).status, 200);
    assert.equal((await rest.post('/things/FZ-1/installations', { installation_status: 'installed' })).status, 200);
    assert.equal(
      (
        await rest.post('/things/FZ-1/commands', [
          { tsmId: 1500, tsmEv: 30, transactionId: 1, measurementInterval: 60, reportInterval: 300 },
        ])
      ).status,
      200,
    );
    const graphql = new GraphqlClient(server);
    await graphql.login();
    graphqlToken = graphql.accessToken!;
    snapshots = new StoreSnapshotter(server.config.databaseUrl);
    await settledSnapshot(snapshots);
  });
  after(async () => {
    snapshots?.close();
    await server?.stop();
  });

  /** A REST client token, fetched again before it could expire during a long run. */
  async function validToken(): Promise<string> {
    if (Date.now() - restToken.fetchedAt > 10 * 60_000) {
      const response = await rest.post<{ data: { token: string } }>(
        '/auth/client-token',
        { client_id: 'acme-client', client_secret: 'acme-client-secret-0123456789' },
        { auth: false },
      );
      restToken = { value: response.body.data.token, fetchedAt: Date.now() };
    }
    return restToken.value;
  }

  async function authorization(request: FuzzRequest): Promise<string | undefined> {
    switch (request.auth.kind) {
      case 'valid':
        return `Bearer ${await validToken()}`;
      case 'none':
        return undefined;
      case 'lowercase-scheme':
        return `bearer ${await validToken()}`;
      case 'graphql-token':
        return `Bearer ${graphqlToken}`;
      case 'tampered': {
        const token = await validToken();
        return `Bearer ${token.slice(0, -4)}${token.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
      }
      case 'header':
        return request.auth.value;
    }
  }

  /** Sends one generated request and checks the invariants; reads and rejected writes must not change the store. */
  async function sendAndCheck(request: FuzzRequest): Promise<HttpResult> {
    const headers: Record<string, string> = { ...request.headers };
    const auth = await authorization(request);
    if (auth !== undefined) headers.authorization = auth;
    if (request.contentType !== undefined) headers['content-type'] = request.contentType;
    const context = describeRequest({ method: request.method, path: request.path, headers, body: request.body });
    const before = snapshots.take();
    const response = await fetch(server.url(`${server.config.restBasePath}${request.path}`), {
      method: request.method,
      headers,
      body: request.body,
    });
    const result = { status: response.status, headers: response.headers, text: await response.text() };
    assertRestResponse(result, context);
    if (request.method === 'GET' || result.status >= 400)
      assertStoreUnchanged(before, snapshots.take(), `${result.status} ${result.text.slice(0, 200)}: ${context}`);
    return result;
  }

  for (const [name, requests] of Object.entries(endpoints)) {
    test(`${name}: no 5xx, the error shape holds, a rejected request changes nothing`, async () => {
      await assertProperty(
        fc.asyncProperty(requests, async (request) => {
          await sendAndCheck(request);
        }),
      );
    });
  }

  test('unknown routes and other methods: 404 or 405 (with Allow) in the error shape, nothing changes', async () => {
    await assertProperty(
      fc.asyncProperty(strayRequest, async (request) => {
        await sendAndCheck(request);
      }),
    );
  });

  test('the server stays healthy and a normal request still works', async () => {
    for (const path of ['/healthz', '/readyz']) assert.equal((await fetch(server.url(path))).status, 200, path);
    const thing = await rest.get('/things/FZ-3');
    assert.equal(thing.status, 200, thing.text);
    assert.equal(thing.body.data.version, '1.2.3');
    const groups = await rest.get('/groups');
    assert.equal(groups.status, 200);
  });
});
