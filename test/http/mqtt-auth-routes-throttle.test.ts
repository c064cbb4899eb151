/**
 * MQTT_AUTH=http is throttled as the embedded broker is (issue 32 finding 8): 60 wrong gateway passwords were all
 * checked and the right one still accepted, and the platform's own username answered in 3.7 ms against 55 ms for
 * the others (a plain comparison, no argon2), so it was found by timing and guessed at 343/s.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/domain/clock.js';
import { authenticateBrokerUser, createMqttCredential } from '../../src/domain/identity/identity-service.js';
import { hashPassword, verifyPassword } from '../../src/domain/identity/secrets.js';
import { cleanupStores } from '../helpers/databases.js';
import { OwnMosquitto, ownMosquittoSkipReason } from '../helpers/own-mosquitto.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

const secret = 'broker-shared-secret-0123456789';
const platformUser = { username: 'thingdesk-platform', password: 'platform-password' };

describe('MQTT_AUTH=http authentication throttle', { skip: ownMosquittoSkipReason }, () => {
  let broker: OwnMosquitto;
  let server: TestApp;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock(Date.now());
    broker = await OwnMosquitto.start(['persistence false']);
    server = await startTestApp(
      {
        MQTT_URL: `mqtt://${platformUser.username}:${platformUser.password}@127.0.0.1:${broker.port}`,
        MQTT_AUTH: 'http',
        MQTT_AUTH_HTTP_SECRET: secret,
        MQTT_SHARED_GROUP: 'http-auth-throttle',
        MQTT_CONSUMER_SLOTS: '1',
      },
      { clock },
    );
  });
  after(async () => {
    await server?.stop();
    await broker?.stop();
  });

  const authenticate = async (username: string, password: string, peerhost?: string) => {
    const response = await fetch(server.url('/mqtt/authenticate'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ username, password, clientid: `c-${username}`, ...(peerhost && { peerhost }) }),
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { result: string }).result;
  };

  test('60 wrong passwords for a gateway, then the right one: refused within the window, accepted after it', async () => {
    const gateway = testBootstrap.BOOTSTRAP_MQTT_USERNAME;
    for (let i = 0; i < 60; i++) assert.equal(await authenticate(gateway, `wrong-${i}`, `10.0.0.${i}`), 'deny');
    assert.equal(await authenticate(gateway, testBootstrap.BOOTSTRAP_MQTT_PASSWORD, '10.0.1.1'), 'deny');
    clock.advance(61_000);
    assert.equal(await authenticate(gateway, testBootstrap.BOOTSTRAP_MQTT_PASSWORD, '10.0.1.1'), 'allow');
  });

  test("the platform's own username is throttled too", async () => {
    for (let i = 0; i < 60; i++) assert.equal(await authenticate(platformUser.username, `wrong-${i}`, `10.1.0.${i}`), 'deny');
    assert.equal(await authenticate(platformUser.username, platformUser.password, '10.1.1.1'), 'deny');
    clock.advance(61_000);
    assert.equal(await authenticate(platformUser.username, platformUser.password, '10.1.1.1'), 'allow');
  });

  test("failures from one device address (the broker's peerhost) block that address for every username", async () => {
    const deps = { store: server.app.store, clock: server.app.clock };
    const made = await createMqttCredential(deps, { organizationId: 'acme', kind: 'gateway', username: 'acme-gw-address' });
    for (let i = 0; i < 30; i++) assert.equal(await authenticate(`guess-${i}`, 'wrong-password', '192.0.2.7'), 'deny');
    assert.equal(await authenticate(made.credential.username, made.password, '192.0.2.7'), 'deny');
    assert.equal(await authenticate(made.credential.username, made.password, '192.0.2.8'), 'allow');
    clock.advance(61_000);
  });
});

describe("the platform's own broker user is verified as any credential", () => {
  test('its password is checked by the same argon2 verifier, after the same store read', async () => {
    const server = await startTestApp();
    try {
      const deps = { store: server.app.store, clock: server.app.clock };
      const platform = { username: platformUser.username, passwordHash: hashPassword(platformUser.password) };
      const calls: string[] = [];
      const reads: string[] = [];
      const store = {
        ...deps.store,
        mqttCredentials: {
          ...deps.store.mqttCredentials,
          getWithPasswordHash: (username: string) => {
            reads.push(username);
            return deps.store.mqttCredentials.getWithPasswordHash(username);
          },
        },
      };
      const verify = async (hash: string, password: string) => {
        calls.push(hash.startsWith('$argon2id$') ? 'argon2id' : 'other');
        return verifyPassword(hash, password);
      };
      const spied = { ...deps, store };
      assert.equal(await authenticateBrokerUser(spied, platformUser.username, platformUser.password, platform, verify), 'platform');
      assert.equal(await authenticateBrokerUser(spied, platformUser.username, 'wrong-password', platform, verify), undefined);
      const gateway = await authenticateBrokerUser(
        spied,
        testBootstrap.BOOTSTRAP_MQTT_USERNAME,
        testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
        platform,
        verify,
      );
      assert.equal(typeof gateway === 'object' && gateway.username, testBootstrap.BOOTSTRAP_MQTT_USERNAME);
      assert.equal(await authenticateBrokerUser(spied, 'nobody', 'wrong-password', platform, verify), undefined);
      assert.deepEqual(calls, ['argon2id', 'argon2id', 'argon2id', 'argon2id']);
      assert.deepEqual(reads, [platformUser.username, platformUser.username, testBootstrap.BOOTSTRAP_MQTT_USERNAME, 'nobody']);
    } finally {
      await server.stop();
    }
  });
});
