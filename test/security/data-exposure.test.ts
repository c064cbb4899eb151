import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CapturedLogs } from '../helpers/captured-logs.js';
import { cleanupStores } from '../helpers/databases.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { connectMqtt } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

/**
 * OWASP API3 (excessive data exposure): no password, secret, token, hash or private key material in any log line,
 * and none in any response except the one creation answer that hands a new secret to its owner.
 */
describe('no secrets in responses or logs', () => {
  let server: TestApp;
  const logs = new CapturedLogs();
  const responses: string[] = [];
  const secrets: string[] = [
    testBootstrap.BOOTSTRAP_PASSWORD,
    testBootstrap.BOOTSTRAP_CLIENT_SECRET,
    testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
  ];

  before(async () => {
    server = await startTestApp({}, { logger: logs.logger });
    // A representative session: tokens, reads, writes, failures, sign-in, administration, MQTT.
    const rest = new RestClient(server);
    const token = await rest.accessToken();
    secrets.push(token);
    await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'EXP-1', batl: 40 }]);
    for (const call of [
      rest.get('/things/EXP-1'),
      rest.get('/things/EXP-1/messages?limit=5'),
      rest.post('/groups', { group_id: 'exposure' }),
      rest.post('/things/EXP-1/commands', [{ tsmId: 1500, tsmEv: 30, transactionId: 9, reportInterval: 60 }]),
      rest.get('/things/EXP-1/commands'),
      rest.post(
        '/auth/client-token',
        { client_id: testBootstrap.BOOTSTRAP_CLIENT_ID, client_secret: 'wrong-secret-value' },
        { auth: false },
      ),
      rest.get('/things/EXP-1', { headers: { authorization: `Bearer ${token}x` }, auth: false }),
      rest.get('/no/such/route'),
    ]) {
      responses.push((await call).text);
    }
    const graphql = new GraphqlClient(server);
    const login = await graphql.login();
    secrets.push(graphql.accessToken!, graphql.refreshToken!);
    responses.push(JSON.stringify({ ...login.body, data: null }));
    for (const query of [
      '{ me { id email role } users { id email role } apiClients { clientId name revoked } mqttCredentials { username kind revoked } }',
      'mutation { login(loginInput: {email: "manager@acme.test", password: "wrong-password", organizationName: "Acme"}) { accessToken } }',
    ]) {
      responses.push(JSON.stringify((await graphql.request(query)).body));
    }
    const created = await graphql.request(
      'mutation { createApiClient(name: "exposure") { clientId clientSecret } createMqttCredential(kind: INTEGRATION) { username password kind } }',
    );
    secrets.push(created.body.data.createApiClient.clientSecret, created.body.data.createMqttCredential.password);
    responses.push(
      JSON.stringify((await graphql.request('{ apiClients { clientId name revoked } mqttCredentials { username kind revoked } }')).body),
    );
    const mqtt = await connectMqtt(server.mqttUrl, {
      username: created.body.data.createMqttCredential.username,
      password: created.body.data.createMqttCredential.password,
    });
    await mqtt.endAsync();
    await connectMqtt(server.mqttUrl, { username: testBootstrap.BOOTSTRAP_MQTT_USERNAME, password: 'wrong-password' }).catch(
      () => undefined,
    );
    responses.push(await (await fetch(server.url('/.well-known/jwks.json'))).text());
    responses.push(await (await fetch(server.url('/metrics'))).text());
  });
  after(() => server?.stop());

  const hashPatterns = [/\$argon2id\$/, /hmac-sha256\$/, /"d":"[A-Za-z0-9_-]{20,}"/, /password_hash|secret_hash|private_jwk/];

  test('the logs were written (the check below is not vacuous)', () => {
    assert.ok(logs.lines.length > 10, `${logs.lines.length} log lines`);
  });

  test('no log line holds a password, secret, token, hash or private key', () => {
    for (const line of logs.lines) {
      for (const secret of secrets) assert.ok(!line.includes(secret), `a secret in the log: ${line.slice(0, 200)}`);
      for (const pattern of hashPatterns) assert.doesNotMatch(line, pattern);
    }
  });

  test('no response holds a hash, private key or a secret it did not just create', () => {
    for (const text of responses) {
      for (const pattern of hashPatterns) assert.doesNotMatch(text, pattern);
      for (const secret of secrets) assert.ok(!text.includes(secret), `a secret in a response: ${text.slice(0, 200)}`);
    }
  });
});
