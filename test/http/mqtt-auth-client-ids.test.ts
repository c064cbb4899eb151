/**
 * MQTT_AUTH=http binds client ids to credentials (issue 32 finding 4): `/mqtt/authenticate` ignored `clientid`, so a
 * broker such as EMQX let another organization's gateway take over this gateway's session. A client id now belongs
 * to the credential that first used it, kept in the store so that every instance the broker asks answers alike.
 * Two instances on PostgreSQL when there is one, else one on SQLite.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMqttCredential, createOrganization, revokeMqttCredential } from '../../src/domain/identity/identity-service.js';
import { cleanupStores, createPostgresUrl, createSqliteUrl, postgresSkipReason } from '../helpers/databases.js';
import { OwnMosquitto, ownMosquittoSkipReason } from '../helpers/own-mosquitto.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

const secret = 'broker-shared-secret-0123456789';
const platformUser = { username: 'thingdesk-platform', password: 'platform-password' };

describe("MQTT_AUTH=http: a client id is its credential's", { skip: ownMosquittoSkipReason }, () => {
  let broker: OwnMosquitto;
  const instances: TestApp[] = [];
  let globex: { username: string; password: string };
  before(async () => {
    broker = await OwnMosquitto.start(['persistence false']);
    const databaseUrl = postgresSkipReason ? createSqliteUrl() : await createPostgresUrl();
    for (const name of postgresSkipReason ? ['a'] : ['a', 'b']) {
      instances.push(
        await startTestApp({
          DATABASE_URL: databaseUrl,
          MQTT_URL: `mqtt://${platformUser.username}:${platformUser.password}@127.0.0.1:${broker.port}`,
          MQTT_AUTH: 'http',
          MQTT_AUTH_HTTP_SECRET: secret,
          MQTT_SHARED_GROUP: 'http-client-ids',
          MQTT_CLIENT_ID: `http-ids-${name}`,
          MQTT_CONSUMER_SLOTS: '1',
        }),
      );
    }
    const deps = { store: instances[0]!.app.store, clock: instances[0]!.app.clock };
    await createOrganization(deps, { name: 'Globex', id: 'globex' });
    const made = await createMqttCredential(deps, { organizationId: 'globex', kind: 'gateway', username: 'globex-gw' });
    globex = { username: made.credential.username, password: made.password };
  });
  after(async () => {
    for (const instance of instances) await instance.stop();
    await broker?.stop();
  });

  const authenticate = async (on: TestApp, username: string, password: string, clientid?: string) => {
    const response = await fetch(on.url('/mqtt/authenticate'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ username, password, ...(clientid !== undefined && { clientid }), peerhost: '198.51.100.1' }),
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { result: string }).result;
  };
  const first = () => instances[0]!;
  const last = () => instances[instances.length - 1]!;

  test("another organization's gateway is refused this gateway's client id, on every instance", async () => {
    const gateway = [testBootstrap.BOOTSTRAP_MQTT_USERNAME, testBootstrap.BOOTSTRAP_MQTT_PASSWORD] as const;
    assert.equal(await authenticate(first(), ...gateway, 'acme-gw-1'), 'allow');
    assert.equal(await authenticate(first(), globex.username, globex.password, 'acme-gw-1'), 'deny');
    assert.equal(await authenticate(last(), globex.username, globex.password, 'acme-gw-1'), 'deny');
    assert.equal(await authenticate(last(), ...gateway, 'acme-gw-1'), 'allow', 'the owner reconnects anywhere');
    assert.equal(await authenticate(last(), globex.username, globex.password, 'globex-gw-1'), 'allow', 'its own ids are free');
    assert.equal(await authenticate(first(), globex.username, globex.password), 'deny', 'a broker that sends no clientid gets deny');
  });

  test("a revoked credential's client ids are free for the next credential", async () => {
    const deps = { store: first().app.store, clock: first().app.clock };
    const old = await createMqttCredential(deps, { organizationId: 'acme', kind: 'gateway', username: 'acme-gw-old' });
    assert.equal(await authenticate(first(), 'acme-gw-old', old.password, 'acme-gw-7'), 'allow');
    const rotated = await createMqttCredential(deps, { organizationId: 'acme', kind: 'gateway', username: 'acme-gw-new' });
    assert.equal(await authenticate(first(), 'acme-gw-new', rotated.password, 'acme-gw-7'), 'deny');
    await revokeMqttCredential(deps, { username: 'acme-gw-old', organizationId: 'acme' });
    assert.equal(await authenticate(last(), 'acme-gw-new', rotated.password, 'acme-gw-7'), 'allow');
    assert.equal(await authenticate(first(), globex.username, globex.password, 'acme-gw-7'), 'deny');
  });

  test("the platform's own user takes its consumer ids even from a credential that used them first", async () => {
    assert.equal(await authenticate(first(), globex.username, globex.password, 'http-client-ids-slot-9'), 'allow');
    assert.equal(await authenticate(first(), platformUser.username, platformUser.password, 'http-client-ids-slot-9'), 'allow');
    assert.equal(await authenticate(last(), globex.username, globex.password, 'http-client-ids-slot-9'), 'deny');
  });
});
