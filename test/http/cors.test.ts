/**
 * CORS (issue 19): real preflights and cross-origin requests over HTTP to REST, GraphQL over HTTP and SSE, for a
 * listed origin, an origin not listed, `*`, and the default (same-origin only).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { corsMaxAgeS } from '../../src/http/cors.js';
import { cleanupStores } from '../helpers/databases.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

const dashboard = 'https://dashboard.example.com';
const stranger = 'https://evil.example.net';

function preflight(server: TestApp, path: string, origin: string, method = 'GET'): Promise<Response> {
  return fetch(server.url(path), {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
  });
}

const corsHeaders = (response: Response) => [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
const varyOf = (response: Response) => (response.headers.get('vary') ?? '').toLowerCase().split(/\s*,\s*/);

describe('CORS with listed origins', () => {
  let server: TestApp;
  let token: string;
  before(async () => {
    server = await startTestApp({ CORS_ORIGINS: `${dashboard},http://localhost:3000` });
    const client = new GraphqlClient(server);
    await client.login();
    token = client.accessToken!;
  });
  after(() => server?.stop());

  for (const [interfaceName, path, method] of [
    ['REST', '/api/v1/things', 'GET'],
    ['REST (a write)', '/api/v1/groups', 'POST'],
    ['GraphQL', '/v1/graphql', 'POST'],
  ] as const) {
    test(`${interfaceName}: the preflight of a listed origin is answered with the methods, headers and max age`, async () => {
      const response = await preflight(server, path, dashboard, method);
      assert.equal(response.status, 204);
      assert.equal(response.headers.get('access-control-allow-origin'), dashboard);
      assert.match(response.headers.get('access-control-allow-methods') ?? '', new RegExp(`\\b${method}\\b`));
      const allowedHeaders = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      assert.ok(allowedHeaders.includes('authorization') && allowedHeaders.includes('content-type'), allowedHeaders);
      assert.equal(response.headers.get('access-control-max-age'), String(corsMaxAgeS));
      assert.equal(response.headers.get('access-control-allow-credentials'), null, 'no credentials ever');
      assert.ok(varyOf(response).includes('origin'));
    });

    test(`${interfaceName}: the preflight of an origin not listed gets no CORS header`, async () => {
      const response = await preflight(server, path, stranger, method);
      assert.equal(response.status, 404);
      assert.deepEqual(corsHeaders(response), []);
    });
  }

  test('REST: a listed origin reads the answer (and the request id), an error answer too; a stranger gets no header', async () => {
    const ok = await fetch(server.url('/api/v1/catalog'), {
      headers: { origin: dashboard, authorization: `Bearer ${await new RestClient(server).accessToken()}` },
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), dashboard);
    assert.match(ok.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/i);
    assert.ok(varyOf(ok).includes('origin'));
    const refused = await fetch(server.url('/api/v1/things'), { headers: { origin: dashboard } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('access-control-allow-origin'), dashboard, 'a page can read why it was refused');
    const strange = await fetch(server.url('/api/v1/things'), { headers: { origin: stranger } });
    assert.equal(strange.status, 401);
    assert.deepEqual(corsHeaders(strange), []);
    assert.ok(varyOf(strange).includes('origin'), 'caches keep answers per origin');
  });

  test('GraphQL over HTTP and over SSE answer a listed origin with its header', async () => {
    const post = await fetch(server.url('/v1/graphql'), {
      method: 'POST',
      headers: { origin: 'http://localhost:3000', 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ me { email } }' }),
    });
    assert.equal(post.status, 200);
    assert.equal(post.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    const controller = new AbortController();
    const sse = await fetch(server.url('/v1/graphql'), {
      method: 'POST',
      headers: { origin: dashboard, 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: 'subscription { alerts { tuid } }' }),
      signal: controller.signal,
    });
    assert.equal(sse.status, 200);
    assert.match(sse.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(sse.headers.get('access-control-allow-origin'), dashboard);
    controller.abort();
  });

  test('a request without Origin (same origin, curl) gets no CORS header', async () => {
    const response = await fetch(server.url('/healthz'));
    assert.deepEqual(corsHeaders(response), []);
  });
});

describe('CORS_ORIGINS=*', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp({ CORS_ORIGINS: '*' });
  });
  after(() => server?.stop());

  test('any origin is answered with *, never with credentials', async () => {
    const response = await preflight(server, '/v1/graphql', stranger, 'POST');
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    assert.equal(response.headers.get('access-control-allow-credentials'), null);
    const get = await fetch(server.url('/api/v1/things'), { headers: { origin: stranger } });
    assert.equal(get.headers.get('access-control-allow-origin'), '*');
    assert.equal(get.headers.get('access-control-allow-credentials'), null);
  });
});

describe('CORS by default (same-origin only)', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp();
  });
  after(() => server?.stop());

  test('no origin gets a CORS header, and preflights are not answered', async () => {
    const response = await preflight(server, '/api/v1/things', dashboard);
    assert.equal(response.status, 404);
    assert.deepEqual(corsHeaders(response), []);
    const get = await fetch(server.url('/api/v1/things'), { headers: { origin: dashboard } });
    assert.deepEqual(corsHeaders(get), []);
  });
});
