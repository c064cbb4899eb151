/**
 * The fast paths of GraphQL execution answer exactly what the plain ones do:
 * - an operation runs on graphql-js the first time and compiled (graphql-jit) after that (compiled-execution.ts):
 *   every run of the same operation, data and errors alike, answers the same;
 * - over HTTP, stored messages travel as their JSON text, spliced into the response (raw-json.ts); over
 *   WebSocket and SSE they are parsed values. Both give the same messages, and REST's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { cleanupStores } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { dataOf } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const t0 = 1_790_000_000;

describe('GraphQL execution paths', () => {
  let server: TestApp;
  let manager: GraphqlClient;
  let rest: RestClient;

  before(async () => {
    server = await startTestApp();
    manager = new GraphqlClient(server);
    await manager.login();
    rest = new RestClient(server);
    await publishUplinks(server, [
      { tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'P-1', tsmGw: 'GW-1', batl: 80.6 },
      // Text that looks like the splicer's stand-in (without its random part), quotes, escapes and non-ASCII.
      {
        tsmId: 9999,
        tsmEv: 1,
        tsmTs: t0 + 1,
        tsmTuid: 'P-1',
        note: '"raw-json-:0" \\ \u00e5\u2603 \u0001',
        nested: { list: [1, { a: null }], empty: {} },
      },
      { tsmId: 1100, tsmEv: 11, tsmTs: t0 + 2, tsmTuid: 'P-1', swVersion: '2.0.1' },
    ]);
  });
  after(() => server?.stop());

  test('an operation answers the same on its first run and once compiled: data, aliases, fragments, directives, errors', async () => {
    const query = `query Mixed($tuid: ID!, $withMessages: Boolean!, $skipVersion: Boolean!) {
      first: thing(tuid: $tuid) { ...summary version @skip(if: $skipVersion) location { lat lon } }
      missing: thing(tuid: "NOBODY")  { tuid }
      messages(tuid: $tuid, limit: 2, messageIds: [1100, 9999]) @include(if: $withMessages)
      bad: thing(tuid: "not a TUID!") { tuid }
      groups { groupId thingCount }
    }
    fragment summary on Thing { tuid batteryLevel timestamp gatewayTuid installationStatus groupId }`;
    const variables = { tuid: 'P-1', withMessages: true, skipVersion: false };
    const runs = [];
    for (let run = 0; run < 4; run++) runs.push(await manager.request(query, variables));
    for (const response of runs) assert.deepEqual([response.status, response.body], [runs[0]!.status, runs[0]!.body]);
    const body = runs[0]!.body;
    assert.equal(body.data.first.tuid, 'P-1');
    assert.equal(body.data.first.version, '2.0.1');
    assert.equal(body.data.missing, null);
    assert.deepEqual(
      body.data.messages.map((m: { tsmId: number }) => m.tsmId),
      [1100, 9999],
    );
    assert.equal(body.data.bad, null);
    assert.deepEqual(
      body.errors?.map((e) => [e.extensions?.code, e.path]),
      [['BAD_USER_INPUT', ['bad']]],
    );

    // An error in a non-null field nulls the whole data, on every run alike.
    const failing = 'query Failing($tuid: ID!) { thing(tuid: $tuid) { tuid } messages(tuid: "NOBODY", limit: 1) }';
    const failures = [];
    for (let run = 0; run < 3; run++) failures.push(await manager.request(failing, { tuid: 'P-1' }));
    for (const response of failures) assert.deepEqual([response.status, response.body], [failures[0]!.status, failures[0]!.body]);
    assert.equal(failures[0]!.body.data, null);
    assert.deepEqual(
      failures[0]!.body.errors?.map((e) => [e.extensions?.code, e.path]),
      [['NOT_FOUND', ['messages']]],
    );

    const skipped = await manager.request(query, { ...variables, withMessages: false, skipVersion: true });
    assert.equal('messages' in skipped.body.data, false);
    assert.equal('version' in skipped.body.data.first, false);
  });

  test('bad variables answer the same precise error on every run (graphql-js words them, compiled or not)', async () => {
    const query = 'mutation Make($role: Role!) { createUser(email: "x@acme.test", password: "long-enough-password", role: $role) { id } }';
    for (let run = 0; run < 3; run++) {
      const response = await manager.request(query, { role: 'OWNER' });
      assert.equal(response.body.data, undefined);
      assert.match(response.body.errors?.[0]?.message ?? '', /Value "OWNER" does not exist in "Role" enum/);
    }
  });

  test('over HTTP the stored JSON texts are spliced in unchanged: equal to REST, in aliased lists too', async () => {
    const expected = (await rest.get('/things/P-1/messages?limit=10')).body.data;
    for (let run = 0; run < 3; run++) {
      const response = await fetch(server.url(server.config.graphqlPath), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${manager.accessToken}` },
        body: JSON.stringify({
          query: '{ all: messages(tuid: "P-1", limit: 10) newest: messages(tuid: "P-1", limit: 1) thing(tuid: "P-1") { tuid } }',
        }),
      });
      const text = await response.text();
      assert.equal(response.headers.get('content-length'), String(Buffer.byteLength(text)));
      assert.doesNotMatch(text, /"raw-json-[A-Za-z0-9_-]+:\d+"/, 'no stand-in is left in the body');
      const body = JSON.parse(text) as { data: { all: unknown[]; newest: unknown[]; thing: { tuid: string } } };
      assert.deepEqual(body.data.all, expected);
      assert.deepEqual(body.data.newest, expected.slice(0, 1));
      assert.equal(body.data.thing.tuid, 'P-1');
      assert.match(text, /"note":"\\"raw-json-:0\\" \\\\ å☃ \\u0001"/, 'the device text arrives byte for byte as stored');
    }
  });

  test('over WebSocket and SSE the same query answers the same messages as parsed values', async () => {
    const query = '{ messages(tuid: "P-1", limit: 10) }';
    const expected = dataOf(await manager.request(query)).messages;
    const url = server.url(server.config.graphqlPath);
    const ws = createWsClient({
      url: url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { token: manager.accessToken },
      retryAttempts: 0,
    });
    const sse = createSseClient({ url, headers: { authorization: `Bearer ${manager.accessToken}` }, retryAttempts: 0 });
    try {
      for (const client of [ws, sse]) {
        const result = await new Promise<{ data?: { messages?: unknown } }>((resolve, reject) => {
          let last: { data?: { messages?: unknown } } | undefined;
          client.subscribe({ query }, { next: (value) => (last = value as never), error: reject, complete: () => resolve(last ?? {}) });
        });
        assert.deepEqual(result.data?.messages, expected);
      }
    } finally {
      await ws.dispose();
      sse.dispose();
    }
  });
});
