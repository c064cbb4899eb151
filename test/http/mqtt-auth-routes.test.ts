/**
 * MQTT_AUTH=http (issue 18): the endpoints a broker such as EMQX calls to authenticate clients and authorize each
 * publish and subscribe answer from the embedded broker's rules, only to a caller with the shared token, and a
 * revocation counts at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMqttCredential, createOrganization } from '../../src/domain/identity/identity-service.js';
import { cleanupStores } from '../helpers/databases.js';
import { signInAs } from '../helpers/graphql-users.js';
import { OwnMosquitto, ownMosquittoSkipReason } from '../helpers/own-mosquitto.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

const secret = 'broker-shared-secret-0123456789';
const platformUser = { username: 'thingdesk-platform', password: 'platform-password' };

describe('MQTT_AUTH=http', { skip: ownMosquittoSkipReason }, () => {
  let broker: OwnMosquitto;
  let server: TestApp;
  let integration: { username: string; password: string };
  before(async () => {
    broker = await OwnMosquitto.start(['persistence false']);
    server = await startTestApp({
      MQTT_URL: `mqtt://${platformUser.username}:${platformUser.password}@127.0.0.1:${broker.port}`,
      MQTT_AUTH: 'http',
      MQTT_AUTH_HTTP_SECRET: secret,
      MQTT_SHARED_GROUP: 'http-auth',
      MQTT_CONSUMER_SLOTS: '1',
    });
    const deps = { store: server.app.store, clock: server.app.clock };
    const made = await createMqttCredential(deps, { organizationId: 'acme', kind: 'integration', username: 'acme-feed' });
    integration = { username: made.credential.username, password: made.password };
    await createOrganization(deps, { name: 'Globex', id: 'globex' });
    await createMqttCredential(deps, { organizationId: 'globex', kind: 'gateway', username: 'globex-gw' });
  });
  after(async () => {
    await server?.stop();
    await broker?.stop();
  });

  const ask = async (path: string, body: unknown, token: string | null = secret) => {
    const response = await fetch(server.url(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { result?: string; code?: string } };
  };
  const authenticate = async (username: string, password: string) =>
    (await ask('/mqtt/authenticate', { username, password, clientid: `c-${username}` })).body.result;
  const authorize = async (username: string, action: string, topic: string) =>
    (await ask('/mqtt/authorize', { username, action, topic })).body.result;

  test('only a caller with the shared token is answered; a malformed question is a 400', async () => {
    const gateway = { username: testBootstrap.BOOTSTRAP_MQTT_USERNAME, password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD };
    assert.equal((await ask('/mqtt/authenticate', gateway, null)).status, 401);
    assert.equal((await ask('/mqtt/authenticate', gateway, 'broker-shared-secret-WRONG-45678')).status, 401);
    assert.equal((await ask('/mqtt/authorize', { username: 'x', action: 'delete', topic: 't' })).status, 400);
    assert.equal((await ask('/mqtt/authorize', { username: 'x', topic: 't' })).status, 400);
  });

  test('authentication: credentials of the store and the platform user; wrong, unknown and empty refused', async () => {
    assert.equal(await authenticate(testBootstrap.BOOTSTRAP_MQTT_USERNAME, testBootstrap.BOOTSTRAP_MQTT_PASSWORD), 'allow');
    assert.equal(await authenticate(testBootstrap.BOOTSTRAP_MQTT_USERNAME, 'wrong-password'), 'deny');
    assert.equal(await authenticate('nobody', 'whatever'), 'deny');
    assert.equal(await authenticate(integration.username, integration.password), 'allow');
    assert.equal(await authenticate(platformUser.username, platformUser.password), 'allow');
    assert.equal(await authenticate(platformUser.username, 'platform-passwore'), 'deny');
    assert.equal(await authenticate('', ''), 'deny');
  });

  test('authorization follows the embedded broker rules, organization by organization', async () => {
    const gateway = testBootstrap.BOOTSTRAP_MQTT_USERNAME;
    const cases: [string, string, string, string][] = [
      [gateway, 'publish', 'thingdesk/acme/up/GW-1', 'allow'],
      [gateway, 'publish', 'thingdesk/globex/up/GW-1', 'deny'],
      [gateway, 'publish', 'thingdesk/acme/down/T-1', 'deny'],
      [gateway, 'subscribe', 'thingdesk/acme/down/+', 'allow'],
      [gateway, 'subscribe', 'thingdesk/globex/down/+', 'deny'],
      [gateway, 'subscribe', '#', 'deny'],
      [gateway, 'subscribe', '$share/g/thingdesk/acme/up/+', 'deny'],
      ['globex-gw', 'publish', 'thingdesk/acme/up/GW-1', 'deny'],
      ['globex-gw', 'publish', 'thingdesk/globex/up/GW-1', 'allow'],
      [integration.username, 'subscribe', 'thingdesk/acme/data/#', 'allow'],
      [integration.username, 'subscribe', 'thingdesk/acme/alerts', 'allow'],
      [integration.username, 'subscribe', 'thingdesk/globex/data/#', 'deny'],
      [integration.username, 'publish', 'thingdesk/acme/up/GW-1', 'deny'],
      [platformUser.username, 'subscribe', '$share/http-auth/thingdesk/+/up/+', 'allow'],
      [platformUser.username, 'publish', 'thingdesk/globex/down/T-1', 'allow'],
      [platformUser.username, 'publish', 'thingdesk-cluster/messages/a-1', 'allow'],
      [platformUser.username, 'subscribe', '#', 'deny'],
      [platformUser.username, 'publish', 'thingdesk/acme/up/GW-1', 'deny'],
      ['nobody', 'publish', 'thingdesk/acme/up/GW-1', 'deny'],
    ];
    for (const [username, action, topic, expected] of cases) {
      assert.equal(await authorize(username, action, topic), expected, `${username} ${action} ${topic}`);
    }
  });

  test('a credential revoked through GraphQL is refused at once, on the next question', async () => {
    const deps = { store: server.app.store, clock: server.app.clock };
    const made = await createMqttCredential(deps, { organizationId: 'acme', kind: 'gateway', username: 'acme-gw-revoked' });
    assert.equal(await authorize('acme-gw-revoked', 'publish', 'thingdesk/acme/up/GW-1'), 'allow');
    const manager = await signInAs(server, 'Manager');
    const revoked = await manager.client.request('mutation { revokeMqttCredential(username: "acme-gw-revoked") }');
    assert.equal(revoked.body.data?.revokeMqttCredential, true);
    assert.equal(await authorize('acme-gw-revoked', 'publish', 'thingdesk/acme/up/GW-1'), 'deny');
    assert.equal(await authenticate('acme-gw-revoked', made.password), 'deny');
  });
});

describe('MQTT_AUTH=http with an MQTT_URL that names no user', { skip: ownMosquittoSkipReason }, () => {
  test('an empty username is nobody: neither authenticated nor given the platform topics', async () => {
    const broker = await OwnMosquitto.start(['persistence false']);
    const server = await startTestApp({
      MQTT_URL: `mqtt://127.0.0.1:${broker.port}`,
      MQTT_AUTH: 'http',
      MQTT_AUTH_HTTP_SECRET: secret,
      MQTT_SHARED_GROUP: 'http-auth-anonymous',
      MQTT_CONSUMER_SLOTS: '1',
    });
    try {
      const ask = async (path: string, body: unknown) => {
        const response = await fetch(server.url(path), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
          body: JSON.stringify(body),
        });
        return ((await response.json()) as { result?: string }).result;
      };
      assert.equal(await ask('/mqtt/authenticate', { username: '', password: '', clientid: 'c-anonymous' }), 'deny');
      assert.equal(await ask('/mqtt/authorize', { username: '', action: 'subscribe', topic: '$share/g/thingdesk/+/up/+' }), 'deny');
      assert.equal(await ask('/mqtt/authorize', { username: '', action: 'publish', topic: 'thingdesk/acme/down/T-1' }), 'deny');
    } finally {
      await server.stop();
      await broker.stop();
    }
  });
});
