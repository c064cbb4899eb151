import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

/**
 * What the existing mobile installer apps rely on (SPEC section 3): every success is HTTP 200 with a JSON object,
 * error bodies carry an integer statusCode equal to the HTTP status, integers stay integers, trailing slashes work;
 * plus the transport limits: 413, 415, 429.
 */
describe('REST contract for existing clients', () => {
  let server: TestApp;
  let rest: RestClient;
  before(async () => {
    server = await startTestApp();
    rest = new RestClient(server);
    await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'C-1', batl: 42.4 }]);
  });
  after(() => server?.stop());

  const readPaths = [
    '/things',
    '/things/C-1',
    '/things/C-1/messages?limit=5',
    '/things/C-1/alerts',
    '/things/alerts',
    '/things/alerts/count',
    '/organization',
    '/fleet/health',
    '/catalog',
    '/catalog/1500',
  ];

  test('every success is 200 with a JSON object holding data, never an array or empty body; a trailing slash works too', async () => {
    for (const path of readPaths) {
      for (const variant of [path, path.replace(/(\?|$)/, '/$1')]) {
        const response = await rest.get(variant);
        assert.equal(response.status, 200, variant);
        assert.match(response.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/, variant);
        assert.ok(response.body && typeof response.body === 'object' && !Array.isArray(response.body), variant);
        assert.deepEqual(Object.keys(response.body), ['data'], variant);
      }
    }
    const token = await rest.post(
      '/auth/client-token/',
      { client_id: 'acme-client', client_secret: 'acme-client-secret-0123456789' },
      { auth: false },
    );
    assert.equal(token.status, 200);
  });

  test('error bodies carry statusCode as an integer equal to the HTTP status, and the other fields', async () => {
    const responses = [
      await rest.get('/things/NOPE'),
      await rest.get('/things/C-1/messages'),
      await rest.get('/things/C-1', { auth: false }),
      await rest.get('/no/such/route'),
      await rest.post('/auth/client-token', undefined, {
        auth: false,
        rawBody: '{"client_id":',
        headers: { 'content-type': 'application/json' },
      }),
    ];
    for (const response of responses) {
      assert.ok(Number.isInteger(response.body.statusCode), response.text);
      assert.equal(response.body.statusCode, response.status);
      assert.equal(typeof response.body.error, 'string');
      assert.equal(typeof response.body.message, 'string');
      assert.equal(typeof response.body.code, 'string');
    }
  });

  test('integer fields are JSON integers', async () => {
    const thing = await rest.get('/things/C-1');
    assert.match(thing.text, /"battery_level":42,/);
    assert.match(thing.text, /"timestamp":1790000000,/);
    const token = await rest.post(
      '/auth/client-token',
      { client_id: 'acme-client', client_secret: 'acme-client-secret-0123456789' },
      { auth: false },
    );
    assert.match(token.text, /"expires_in":900\}/);
  });

  test('a body over 1 MiB is 413', async () => {
    const big = JSON.stringify({ client_id: 'x', client_secret: 'y'.repeat(1024 * 1024) });
    const response = await rest.post('/auth/client-token', undefined, {
      auth: false,
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.status, 413);
    assert.equal(response.body.code, 'PAYLOAD_TOO_LARGE');
  });

  test('a body that is not JSON is 415; malformed JSON is 400', async () => {
    const form = await rest.post('/auth/client-token', undefined, {
      auth: false,
      rawBody: 'client_id=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    assert.equal(form.body.code, 'UNSUPPORTED_MEDIA_TYPE');
    const text = await rest.post('/auth/client-token', undefined, {
      auth: false,
      rawBody: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(text.status, 415);
    const malformed = await rest.post('/auth/client-token', undefined, {
      auth: false,
      rawBody: '{"a":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.code, 'MALFORMED_JSON');
    const charset = await rest.post('/auth/client-token', undefined, {
      auth: false,
      rawBody: JSON.stringify({ client_id: 'acme-client', client_secret: 'acme-client-secret-0123456789' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(charset.status, 200);
  });

  test('OpenAPI 3.1 lists every REST path from the validating schemas; /docs renders it', async () => {
    const doc = (await (await fetch(server.url('/openapi.json'))).json()) as {
      openapi: string;
      servers: { url: string }[];
      paths: Record<string, Record<string, { parameters?: { name: string; required?: boolean }[] }>>;
    };
    assert.equal(doc.openapi, '3.1.0');
    // Paths are relative to the one server, REST_BASE_PATH.
    assert.deepEqual(
      doc.servers.map((s) => s.url),
      ['/api/v1'],
    );
    for (const path of ['/auth/client-token', '/things/{tuid}', '/things/{tuid}/messages', '/things/alerts', '/catalog']) {
      assert.ok(doc.paths[path], path);
    }
    const limit = doc.paths['/things/{tuid}/messages']!.get!.parameters!.find((p) => p.name === 'limit');
    assert.equal(limit?.required, true);
    const page = await fetch(server.url('/docs'));
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);
  });
});

describe('rate limits', () => {
  // The limits count in fixed one-minute windows: a still clock keeps a test's requests in one window (on the
  // system clock a run that straddles a minute boundary starts counting afresh and the last request passes).
  const stillClock = () => ({ clock: new ManualClock(Date.now()) });
  test('per caller: past the limit 429 with Retry-After and the error shape; all tokens of a client share it', async () => {
    const server = await startTestApp({ RATE_LIMIT_PER_TOKEN: '5', RATE_LIMIT_PER_ADDRESS: '1000' }, stillClock());
    try {
      const rest = new RestClient(server);
      const statuses: number[] = [];
      // The token request itself carries no token, so all 5 token-bearing calls pass and the 6th is refused.
      for (let i = 0; i < 6; i++) statuses.push((await rest.get('/things')).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
      const limited = await rest.get('/things');
      assert.equal(limited.body.statusCode, 429);
      assert.equal(limited.body.code, 'RATE_LIMITED');
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      // Another token of the same client shares the budget: a client cannot multiply it by asking for tokens.
      const other = new RestClient(server);
      assert.equal((await other.get('/things')).status, 429);
    } finally {
      await server.stop();
    }
  });

  test('made-up tokens are never counted by caller: the limiter holds no key for them, only their address', async () => {
    const server = await startTestApp({ RATE_LIMIT_PER_ADDRESS: '100000' });
    try {
      for (let i = 0; i < 200; i++) {
        const token = randomBytes(10_000).toString('base64url');
        const response = await fetch(server.url('/api/v1/things'), { headers: { authorization: `Bearer ${token}` } });
        assert.equal(response.status, 401);
      }
      const graphql = await fetch(server.url(server.config.graphqlPath), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${randomBytes(10_000).toString('base64url')}` },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      assert.equal(graphql.status, 200);
      const metrics = await (await fetch(server.url('/metrics'))).text();
      assert.match(metrics, /thingdesk_rate_limiter_keys\{limiter="caller"\} 0\n/);
      assert.match(metrics, /thingdesk_rate_limiter_keys\{limiter="address"\} 1\n/);
    } finally {
      await server.stop();
    }
  });

  test('per address: also without a token (the token endpoint cannot be hammered)', async () => {
    const server = await startTestApp({ RATE_LIMIT_PER_ADDRESS: '3' }, stillClock());
    try {
      const rest = new RestClient(server);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await rest.post('/auth/client-token', { client_id: 'x', client_secret: 'y' }, { auth: false })).status);
      assert.deepEqual(statuses, [401, 401, 401, 429]);
    } finally {
      await server.stop();
    }
  });
});
