/**
 * Property-based fuzzing of the GraphQL endpoint (issue 8): generated operations of the schema with random and
 * malformed arguments, variables and selections, junk documents, batches, wrong content types and GET mutations,
 * as every audience. For every response: no 5xx, a JSON body with data and/or errors, every error coded (never
 * INTERNAL_SERVER_ERROR) and free of internals; queries and refused mutations leave the store as it was.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { createUser } from '../../src/domain/identity/identity-service.js';
import { cleanupStores } from '../helpers/databases.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { RestClient } from '../helpers/rest-client.js';
import { StoreSnapshotter, settledSnapshot } from '../helpers/store-snapshot.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';
import { assertProperty } from './fuzz-settings.js';
import { seededGroup } from './graphql-arguments.js';
import { bodyRequests, getRequests, junkRequests, operationRequests, type Audience, type GraphqlFuzzRequest } from './graphql-requests.js';
import { assertNoInternals, assertStoreUnchanged, parseJson, type HttpResult } from './invariants.js';

after(cleanupStores);
after(closeMqttClients);

const t0 = 1_790_000_000;

/** The codes of SPEC section 4 (and COST_LIMIT) a client may see for generated input (INTERNAL_SERVER_ERROR would be a bug). */
const inputErrorCodes = new Set(['UNAUTHENTICATED', 'FORBIDDEN', 'BAD_USER_INPUT', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'COST_LIMIT']);

interface GraphqlBody {
  data?: Record<string, unknown> | null;
  errors?: { message: unknown; path?: unknown[]; extensions?: { code?: unknown } }[];
}

/**
 * The GraphQL invariants for one response. GraphQL over HTTP answers 200 (or 400 with
 * application/graphql-response+json) for GraphQL errors, 405 for a mutation over GET, 413 and 415 for bodies,
 * and 406 with an empty body when the client accepts no JSON type at all (graphql-http, per the spec).
 */
function assertGraphqlResponse(result: HttpResult, context: string): GraphqlBody | undefined {
  assert.ok(result.status < 500, `status ${result.status}: ${result.text.slice(0, 500)}: ${context}`);
  assert.ok(
    [200, 400, 405, 406, 413, 415].includes(result.status),
    `unexpected status ${result.status}: ${result.text.slice(0, 300)}: ${context}`,
  );
  if (result.status === 406) {
    assert.equal(result.text, '', context);
    return undefined;
  }
  assert.match(result.headers.get('content-type') ?? '', /^application\/(graphql-response\+)?json; charset=utf-8$/, context);
  const body = parseJson(result, context) as GraphqlBody;
  assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), `body is not a JSON object: ${context}`);
  assert.ok('data' in body || 'errors' in body, `neither data nor errors: ${result.text.slice(0, 300)}: ${context}`);
  for (const key of Object.keys(body)) assert.ok(['data', 'errors', 'extensions'].includes(key), `unexpected key ${key}: ${context}`);
  if (result.status !== 200)
    assert.ok(Array.isArray(body.errors) && body.errors.length > 0, `status ${result.status} without errors: ${context}`);
  if (body.errors !== undefined) {
    assert.ok(Array.isArray(body.errors) && body.errors.length > 0, context);
    for (const error of body.errors) {
      assert.equal(typeof error.message, 'string', `error without a message: ${JSON.stringify(error)}: ${context}`);
      const code = error.extensions?.code;
      assert.notEqual(code, 'INTERNAL_SERVER_ERROR', `INTERNAL_SERVER_ERROR for generated input: ${JSON.stringify(error)}: ${context}`);
      assert.ok(
        typeof code === 'string' && inputErrorCodes.has(code),
        `error code ${String(code)}: ${JSON.stringify(error).slice(0, 300)}: ${context}`,
      );
      assertNoInternals(error.message as string, context);
    }
  }
  return body;
}

/**
 * Whether the request may have written: only a generated mutation, POSTed, with at least one root field that did
 * not fail. Everything else (queries, refused mutations, junk) must leave the store as it was.
 */
function mayHaveWritten(request: GraphqlFuzzRequest, body: GraphqlBody | undefined): boolean {
  const operation = request.operation;
  if (!operation || operation.kind !== 'mutation' || !body) return false;
  const errors = body.errors ?? [];
  if (errors.length > 0 && errors.every((error) => !Array.isArray(error.path)) && !body.data) return false;
  const refused = new Set(
    errors.filter((error) => Array.isArray(error.path) && error.path.length === 1).map((error) => String(error.path![0])),
  );
  return operation.rootKeys.some((key) => !refused.has(key));
}

describe('GraphQL fuzzing (issue 8)', () => {
  let server: TestApp;
  let snapshots: StoreSnapshotter;
  let restToken: string;
  const sessions: Partial<Record<Audience, { client: GraphqlClient; email?: string; password?: string; signedInAt: number }>> = {};

  async function signIn(audience: 'Viewer' | 'Installer' | 'Manager', email?: string, password?: string): Promise<void> {
    const client = new GraphqlClient(server);
    const response = await client.login(email ? { email, password } : {});
    assert.ok(client.accessToken, `${audience} could not sign in: ${JSON.stringify(response.body)}`);
    sessions[audience] = { client, email, password, signedInAt: Date.now() };
  }

  before(async () => {
    server = await startTestApp({
      RATE_LIMIT_PER_TOKEN: '10000000',
      RATE_LIMIT_PER_ADDRESS: '10000000',
      // Fuzzed sign-ins fail by the hundred from one address; the fuzzer's own sign-ins must still get through.
      LOGIN_FAILURES_PER_ADDRESS: '100000',
      ALERT_INTERVAL_S: String(31 * 24 * 3600),
    });
    await publishUplinks(server, [
      { tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'GQ-1', batl: 55 },
      { tsmId: 1100, tsmEv: 10, tsmTs: t0, tsmTuid: 'GQ-2', swVersion: '2.0.0' },
    ]);
    const deps = { store: server.app.store, clock: server.app.clock };
    await createUser(deps, { organizationId: 'acme', email: 'viewer@acme.test', password: 'viewer-password', role: 'Viewer' });
    await createUser(deps, { organizationId: 'acme', email: 'installer@acme.test', password: 'installer-password', role: 'Installer' });
    await signIn('Manager');
    await signIn('Viewer', 'viewer@acme.test', 'viewer-password');
    await signIn('Installer', 'installer@acme.test', 'installer-password');
    const manager = sessions.Manager!.client;
    assert.deepEqual(
      (await manager.request(`mutation { createGroup(groupId: "${seededGroup}", description: "seeded") { groupId } }`)).body.errors,
      undefined,
    );
    assert.deepEqual(
      (await manager.request(`mutation { assignThingToGroup(tuid: "GQ-2", groupId: "${seededGroup}") { groupId } }`)).body.errors,
      undefined,
    );
    restToken = await new RestClient(server).accessToken();
    snapshots = new StoreSnapshotter(server.config.databaseUrl);
    await settledSnapshot(snapshots);
  });
  after(async () => {
    snapshots?.close();
    await server?.stop();
  });

  /** The Authorization header of an audience; sessions are renewed before their access tokens could expire. */
  async function authorization(audience: Audience): Promise<string | undefined> {
    switch (audience) {
      case 'anonymous':
        return undefined;
      case 'garbage-token':
        return 'Bearer eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.AAAA';
      case 'rest-token':
        return `Bearer ${restToken}`;
      default: {
        const session = sessions[audience]!;
        if (Date.now() - session.signedInAt > 10 * 60_000) await signIn(audience, session.email, session.password);
        return `Bearer ${sessions[audience]!.client.accessToken}`;
      }
    }
  }

  async function sendAndCheck(request: GraphqlFuzzRequest): Promise<void> {
    const headers: Record<string, string> = {};
    const auth = await authorization(request.audience);
    if (auth) headers.authorization = auth;
    if (request.contentType !== undefined) headers['content-type'] = request.contentType;
    if (request.accept !== undefined) headers.accept = request.accept;
    const context = `${request.audience} ${request.method} ${JSON.stringify(headers['content-type'])} accept=${JSON.stringify(request.accept)} body(${request.body.length})=${JSON.stringify(request.body.slice(0, 600))}`;
    const url = server.url(server.config.graphqlPath) + (request.method === 'GET' ? `?${request.body}` : '');
    const before = snapshots.take();
    const response = await fetch(url, { method: request.method, headers, body: request.method === 'GET' ? undefined : request.body });
    const result = { status: response.status, headers: response.headers, text: await response.text() };
    const body = assertGraphqlResponse(result, context);
    if (!mayHaveWritten(request, body))
      assertStoreUnchanged(before, snapshots.take(), `${result.status} ${result.text.slice(0, 300)}: ${context}`);
  }

  const families: [string, fc.Arbitrary<GraphqlFuzzRequest>][] = [
    ['generated operations as a Manager', operationRequests('Manager')],
    ['generated operations as a Viewer', operationRequests('Viewer')],
    ['generated operations as an Installer', operationRequests('Installer')],
    ['generated operations without a valid access token', operationRequests('anonymous', 'garbage-token', 'rest-token')],
    ['generated operations over GET', getRequests],
    ['junk documents, wrong parameter types and batches', junkRequests],
    ['bodies that are not JSON, huge or deep, and wrong content types', bodyRequests],
  ];
  for (const [name, requests] of families) {
    test(`${name}: no 5xx, coded errors without internals, refused mutations change nothing`, async () => {
      await assertProperty(
        fc.asyncProperty(requests, async (request) => {
          await sendAndCheck(request);
        }),
      );
    });
  }

  test('the server stays healthy and a normal request still works', async () => {
    for (const path of ['/healthz', '/readyz']) assert.equal((await fetch(server.url(path))).status, 200, path);
    const viewer = sessions.Viewer!.client;
    // (The Manager's generated mutations may have moved GQ-2 to another group by now; its version stays.)
    const response = await viewer.request('{ thing(tuid: "GQ-2") { tuid version } }');
    assert.deepEqual(response.body, { data: { thing: { tuid: 'GQ-2', version: '2.0.0' } } });
  });
});
