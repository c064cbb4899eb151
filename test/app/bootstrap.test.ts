import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ConfigError } from '../../src/config/config-error.js';
import { verifyPassword, verifySecret } from '../../src/domain/identity/secrets.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { startTestApp, testBootstrap } from '../helpers/test-app.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`bootstrap on ${target.name}`, { skip: target.skip }, () => {
    test('a first start creates exactly the BOOTSTRAP_* values; a second start creates nothing', async () => {
      const env = {
        DATABASE_URL: await target.createUrl(),
        BOOTSTRAP_ORG: 'Acme',
        BOOTSTRAP_EMAIL: 'boss@acme.test',
        BOOTSTRAP_PASSWORD: 'boss-password',
        BOOTSTRAP_CLIENT_ID: 'acme-client',
        BOOTSTRAP_CLIENT_SECRET: 'acme-client-secret-0123456789',
        BOOTSTRAP_MQTT_USERNAME: 'acme-gateway',
        BOOTSTRAP_MQTT_PASSWORD: 'gateway-password',
      };
      const first = await startTestApp(env);
      try {
        assert.deepEqual(first.app.bootstrap, {
          organizationId: 'acme',
          organizationName: 'Acme',
          email: 'boss@acme.test',
          clientId: 'acme-client',
          mqttUsername: 'acme-gateway',
        });
        const { store } = first.app;
        const user = await store.users.getWithPasswordHashByEmail('acme', 'boss@acme.test');
        assert.equal(user?.role, 'Manager');
        assert.equal(await verifyPassword(user!.passwordHash, 'boss-password'), true);
        assert.equal(
          verifySecret((await store.apiClients.getWithSecretHash('acme-client'))!.secretHash, env.BOOTSTRAP_CLIENT_SECRET),
          true,
        );
        const gateway = await store.mqttCredentials.getWithPasswordHash('acme-gateway');
        assert.equal(gateway?.kind, 'gateway');
        assert.equal(await verifyPassword(gateway!.passwordHash, 'gateway-password'), true);
        // Secrets the operator chose are not echoed back.
        assert.ok(!first.printed.join('').includes('boss-password'));
      } finally {
        await first.stop();
      }
      const second = await startTestApp({ ...env, BOOTSTRAP_ORG: 'Another' });
      try {
        assert.equal(second.app.bootstrap, undefined);
        assert.deepEqual(second.printed, []);
        assert.deepEqual(
          (await second.app.store.organizations.list()).map((o) => o.id),
          ['acme'],
        );
        assert.equal((await second.app.store.users.list('acme')).length, 1);
        assert.equal((await second.app.store.apiClients.list('acme')).length, 1);
      } finally {
        await second.stop();
      }
    });

    test('unset values are generated and printed once', async () => {
      const unset = Object.fromEntries(Object.keys(testBootstrap).map((name) => [name, '']));
      const app = await startTestApp({ ...unset, DATABASE_URL: await target.createUrl() });
      try {
        const report = app.app.bootstrap!;
        assert.equal(report.organizationName, 'thingdesk');
        assert.ok(report.password && report.password.length >= 20);
        assert.ok(report.clientSecret && report.clientSecret.length >= 40);
        assert.ok(report.mqttPassword && report.mqttPassword.length >= 40);
        const printed = app.printed.join('');
        for (const value of [
          report.password,
          report.clientSecret,
          report.mqttPassword,
          report.clientId,
          report.mqttUsername,
          report.email,
        ]) {
          assert.ok(printed.includes(value!), `printed ${value}`);
        }
        const user = await app.app.store.users.getWithPasswordHashByEmail(report.organizationId, report.email);
        assert.equal(await verifyPassword(user!.passwordHash, report.password!), true);
      } finally {
        await app.stop();
      }
    });
  });
}

describe('bootstrap values that break a rule', () => {
  const cases: [string, string][] = [
    ['BOOTSTRAP_EMAIL', 'not-an-email'],
    ['BOOTSTRAP_PASSWORD', 'short'],
    ['BOOTSTRAP_CLIENT_ID', 'has spaces'],
    ['BOOTSTRAP_CLIENT_SECRET', 'tooshort'],
    ['BOOTSTRAP_MQTT_USERNAME', 'gw/+'],
    ['BOOTSTRAP_MQTT_PASSWORD', 'short'],
  ];
  for (const [variable, value] of cases) {
    test(`${variable}=${value} stops start-up naming ${variable}`, async () => {
      await assert.rejects(
        startTestApp({ [variable]: value }),
        (error: unknown) => error instanceof ConfigError && error.variable === variable,
      );
    });
  }
});
