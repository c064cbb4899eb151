/**
 * Observability (issue 19): request logs at info without secrets, the metrics operators asked for, /metrics on
 * its own listener or behind a token, and metric names checked against Prometheus conventions.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/observability/logger.js';
import { cleanupStores } from '../helpers/databases.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { connectMqtt, closeMqttClients } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);
after(closeMqttClients);

/** A logger at `level` whose JSON lines are kept in memory. */
function capturedLogger(level: 'info' | 'warn') {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(chunk.toString());
      for (const text of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger(level, stream), lines, raw };
}

const metricsText = async (server: TestApp, headers: Record<string, string> = {}) =>
  (await fetch(server.url('/metrics'), { headers })).text();

describe('request logs', () => {
  let server: TestApp;
  const captured = capturedLogger('info');
  let graphql: GraphqlClient;
  let rest: RestClient;
  before(async () => {
    server = await startTestApp({ LOG_LEVEL: 'info' }, { logger: captured.logger });
    graphql = new GraphqlClient(server);
    await graphql.login();
    rest = new RestClient(server);
  });
  after(() => server?.stop());

  test('each request is logged at info: method, route, status, duration, request id and principal, never a token', async () => {
    const response = await fetch(server.url('/api/v1/things?limit=5'), {
      headers: { authorization: `Bearer ${await rest.accessToken()}`, 'x-request-id': 'trace-rest-1' },
    });
    assert.equal(response.status, 200);
    await graphql.request('{ me { email } }');
    await fetch(server.url('/healthz'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const requests = captured.lines.filter((line) => line.msg === 'request');
    const restLine = requests.find((line) => line.reqId === 'trace-rest-1');
    assert.ok(restLine, JSON.stringify(requests));
    assert.equal(restLine.level, 30, 'info');
    assert.deepEqual(
      { method: restLine.method, route: restLine.route, status: restLine.status, principal: restLine.principal },
      { method: 'GET', route: '/api/v1/things', status: 200, principal: `client:${testBootstrap.BOOTSTRAP_CLIENT_ID}` },
    );
    assert.equal(typeof restLine.durationMs, 'number');
    const graphqlLine = requests.filter((line) => line.route === '/v1/graphql').at(-1)!;
    assert.match(String(graphqlLine.principal), /^user:/);
    assert.ok(!requests.some((line) => line.route === '/healthz' && line.level === 30), 'probes are not logged at info');
    const everything = captured.raw.join('');
    assert.ok(!everything.includes(graphql.accessToken!), 'no access token in the log');
    assert.ok(!everything.includes(await rest.accessToken()), 'no REST token in the log');
    assert.ok(!everything.includes(testBootstrap.BOOTSTRAP_PASSWORD), 'no password in the log');
  });

  test('LOG_LEVEL=warn silences them', async () => {
    const quiet = capturedLogger('warn');
    const quietServer = await startTestApp({ LOG_LEVEL: 'warn' }, { logger: quiet.logger });
    try {
      await fetch(quietServer.url('/api/v1/things'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(
        quiet.lines.filter((line) => line.msg === 'request'),
        [],
      );
    } finally {
      await quietServer.stop();
    }
  });
});

describe('metrics', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp();
  });
  after(() => server?.stop());

  test('build info, GraphQL operations by field and outcome, sign-in failures, MQTT connections, live subscriptions, open alerts', async () => {
    const client = new GraphqlClient(server);
    await client.login();
    await client.request('{ me { email } }');
    await client.request('{ me { nope } }');
    await client.login({ password: 'wrong password' });
    await connectMqtt(server.mqttUrl, { username: testBootstrap.BOOTSTRAP_MQTT_USERNAME, password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD });
    const text = await metricsText(server);
    assert.match(text, new RegExp(`^thingdesk_build_info\\{version="[^"]+",node="${process.version.replace(/\./g, '\\.')}"\\} 1$`, 'm'));
    assert.match(text, /^thingdesk_graphql_operations_total\{type="query",field="me",outcome="ok"\} 1$/m);
    assert.match(text, /^thingdesk_graphql_operations_total\{type="-",field="-",outcome="refused"\} 1$/m);
    assert.match(text, /^thingdesk_graphql_operations_total\{type="mutation",field="login",outcome="error"\} 1$/m);
    assert.match(text, /^thingdesk_login_failures_total\{reason="invalid"\} 1$/m);
    assert.match(text, /^thingdesk_mqtt_connections\{kind="gateway"\} 1$/m);
    assert.match(text, /^thingdesk_graphql_live_subscriptions 0$/m);
    assert.match(text, /^thingdesk_alerts_open\{type="battery low"\} 0$/m);
  });

  test('metric names and help follow Prometheus conventions (promtool check metrics where it is installed)', async (t) => {
    const text = await metricsText(server);
    // prom-client's default metrics (thingdesk_nodejs_*, thingdesk_process_*) have names fixed by the library:
    // three of its gauges end in _total, which promtool reports. Every metric of our own must pass.
    const fromLibrary = (name: string) => /^thingdesk_(nodejs|process)_/.test(name);
    const families = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => ({ name: match[1]!, type: match[2]! }));
    const own = families.filter(({ name }) => !fromLibrary(name));
    assert.ok(own.length > 15, own.map(({ name }) => name).join(', '));
    for (const { name, type } of own) {
      assert.match(name, /^thingdesk_[a-z][a-z0-9_]*$/, name);
      assert.match(text, new RegExp(`^# HELP ${name} \\S`, 'm'), `${name} has help`);
      if (type === 'counter') assert.match(name, /_total$/, `${name}: a counter ends in _total`);
      else assert.doesNotMatch(name, /_total$/, `${name}: only counters end in _total`);
    }
    const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    if (promtool.error) {
      t.skip('promtool is not installed (Debian: apt-get install prometheus); the name checks above ran');
      return;
    }
    const problems = `${promtool.stdout}${promtool.stderr}`.split('\n').filter((line) => line.trim() !== '');
    assert.deepEqual(
      problems.filter((line) => !fromLibrary(line.split(' ')[0]!)),
      [],
      'promtool check metrics',
    );
  });
});

describe('metrics endpoint placement', () => {
  test('METRICS_TOKEN: /metrics answers only the bearer token', async () => {
    const token = 'scrape-token-0123456789';
    const server = await startTestApp({ METRICS_TOKEN: token });
    try {
      const refused = await fetch(server.url('/metrics'));
      assert.equal(refused.status, 401);
      assert.equal(((await refused.json()) as { code: string }).code, 'UNAUTHENTICATED');
      assert.equal((await fetch(server.url('/metrics'), { headers: { authorization: 'Bearer scrape-token-wrong-45678' } })).status, 401);
      const allowed = await fetch(server.url('/metrics'), { headers: { authorization: `Bearer ${token}` } });
      assert.equal(allowed.status, 200);
      assert.match(await allowed.text(), /thingdesk_build_info/);
    } finally {
      await server.stop();
    }
  });

  test('METRICS_PORT: /metrics on its own listener, and no longer on the API port', async () => {
    const server = await startTestApp({ METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' });
    try {
      assert.ok(server.app.metricsPort && server.app.metricsPort !== server.app.httpPort);
      assert.equal((await fetch(server.url('/metrics'))).status, 404);
      const own = await fetch(`http://127.0.0.1:${server.app.metricsPort}/metrics`);
      assert.equal(own.status, 200);
      assert.match(await own.text(), /thingdesk_http_requests_total/);
      assert.equal((await fetch(`http://127.0.0.1:${server.app.metricsPort}/api/v1/things`)).status, 404, 'only metrics there');
    } finally {
      await server.stop();
    }
  });
});
