import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ConfigError } from '../../src/config/config-error.js';
import { runCli } from '../../src/cli/program.js';
import { cleanupStores } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

describe('HTTP server basics', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp();
  });
  after(() => server?.stop());

  test('GET /healthz answers ok', async () => {
    const response = await fetch(server.url('/healthz'));
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok' });
  });

  test('GET /readyz reports the store reachable', async () => {
    const response = await fetch(server.url('/readyz'));
    assert.equal(response.status, 200);
    const body = (await response.json()) as { status: string; checks: Record<string, string> };
    assert.equal(body.status, 'ready');
    assert.equal(body.checks.store, 'ok');
  });

  test('GET /metrics serves Prometheus text with request counters', async () => {
    await fetch(server.url('/healthz'));
    const response = await fetch(server.url('/metrics'));
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await response.text();
    assert.match(text, /thingdesk_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    assert.match(text, /thingdesk_process_resident_memory_bytes/);
  });

  test('an unknown route answers 404 in the error shape of SPEC section 3', async () => {
    const response = await fetch(server.url('/no/such/route?x=1'));
    assert.equal(response.status, 404);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json; charset=utf-8/);
    assert.deepEqual(await response.json(), {
      statusCode: 404,
      error: 'Not Found',
      message: 'No route GET /no/such/route.',
      code: 'NOT_FOUND',
    });
  });

  test('a wrong method on a known path answers 405 with Allow and the error shape, before authentication', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/api/v1/things', 'GET, HEAD'],
      ['PUT', '/api/v1/things/T-1?x=1', 'GET, HEAD, PATCH'],
      ['PATCH', '/api/v1/things/T-1/group/', 'GET, HEAD, POST'],
      ['GET', '/api/v1/auth/client-token', 'POST'],
      ['POST', '/healthz', 'GET, HEAD'],
    ];
    for (const [method, url, allow] of cases) {
      const response = await fetch(server.url(url), { method });
      assert.equal(response.status, 405, `${method} ${url}`);
      assert.equal(response.headers.get('allow'), allow, `${method} ${url}`);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json; charset=utf-8/);
      const path = url.split('?')[0]!;
      assert.deepEqual(await response.json(), {
        statusCode: 405,
        error: 'Method Not Allowed',
        message: `${path} does not answer ${method}; it answers ${allow}.`,
        code: 'METHOD_NOT_ALLOWED',
      });
    }
    const unknown = await fetch(server.url('/api/v1/no-such-thing'), { method: 'DELETE' });
    assert.equal(unknown.status, 404, 'an unknown path stays 404 whatever the method');
    assert.equal(unknown.headers.get('allow'), null);
    assert.equal(
      (await fetch(server.url('/api/v1/things'), { method: 'OPTIONS' })).status,
      404,
      'an OPTIONS nobody answers stays 404 (CORS answers preflights)',
    );
  });

  test('a trailing slash reaches the same route', async () => {
    const response = await fetch(server.url('/healthz/'));
    assert.equal(response.status, 200);
  });

  test('every answer carries a request id; a sane incoming X-Request-Id is kept, a bad one replaced', async () => {
    const kept = await fetch(server.url('/healthz'), { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(kept.headers.get('x-request-id'), 'trace-123');
    const replaced = await fetch(server.url('/healthz'), { headers: { 'x-request-id': 'bad id\twith tab' } });
    assert.match(replaced.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  test('JWKS serves the current key, and the current and previous keys after a rotation', async () => {
    const before = (await (await fetch(server.url('/.well-known/jwks.json'))).json()) as { keys: { kid: string; d?: string }[] };
    assert.equal(before.keys.length, 1);
    const output: string[] = [];
    const code = await runCli(['keys', 'rotate', '--json'], {
      env: { DATABASE_URL: server.config.databaseUrl },
      stdout: (text) => output.push(text),
      stderr: (text) => output.push(text),
    });
    assert.equal(code, 0, output.join(''));
    const rotated = JSON.parse(output.join('')) as { kid: string };
    const after = (await (await fetch(server.url('/.well-known/jwks.json'))).json()) as { keys: { kid: string; d?: string }[] };
    assert.deepEqual(after.keys.map((k) => k.kid).sort(), [rotated.kid, before.keys[0]!.kid].sort());
    assert.ok(after.keys.every((k) => k.d === undefined));
  });
});

describe('start-up failures', () => {
  test('a port already in use stops start-up naming PORT', async () => {
    const first = await startTestApp();
    try {
      await assert.rejects(
        startTestApp({ PORT: String(first.app.httpPort) }),
        (error: unknown) => error instanceof ConfigError && error.variable === 'PORT' && /in use/.test(error.message),
      );
    } finally {
      await first.stop();
    }
  });

  test('an unreachable database stops start-up naming DATABASE_URL', async () => {
    await assert.rejects(
      startTestApp({ DATABASE_URL: 'postgres://nobody:secret@127.0.0.1:1/none' }),
      (error: unknown) => error instanceof ConfigError && error.variable === 'DATABASE_URL' && !error.message.includes('secret'),
    );
  });
});

describe('graceful shutdown', () => {
  test('stop() lets an in-flight request finish, then refuses new connections and closes the store', async () => {
    const server = await startTestApp();
    const port = server.app.httpPort;
    // A POST whose body arrives slowly is in flight while the server is asked to stop.
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, method: 'POST', path: '/slow-upload', headers: { 'content-type': 'application/json' } },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write('{"part":');
      setTimeout(() => req.end('1}'), 300);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopped = server.stop();
    const finished = await answer;
    assert.equal(finished.status, 404);
    assert.equal((JSON.parse(finished.body) as { code: string }).code, 'NOT_FOUND');
    await stopped;
    await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`));
    await assert.rejects(server.app.store.ping());
  });
});
