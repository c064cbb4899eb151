import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, describe, test } from 'node:test';
import { ConfigError } from '../../src/config/config-error.js';
import { cleanupStores, openMigratedStore, storeTargets } from '../helpers/databases.js';
import { startTestApp } from '../helpers/test-app.js';

after(cleanupStores);

/** A TCP port held by someone else for the duration of a test. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

async function organizationCount(databaseUrl: string): Promise<number> {
  const { database, store } = await openMigratedStore(databaseUrl);
  try {
    return await store.organizations.count();
  } finally {
    await database.close();
  }
}

for (const target of storeTargets) {
  describe(`the first start on ${target.name} bootstraps only once every listener is bound`, { skip: target.skip }, () => {
    for (const variable of ['PORT', 'MQTT_PORT', 'METRICS_PORT']) {
      test(`${variable} in use: start-up fails naming ${variable} and the port, creates nothing; the next start prints the secrets`, async () => {
        const databaseUrl = await target.createUrl();
        const taken = await occupiedPort();
        try {
          await assert.rejects(
            startTestApp({ DATABASE_URL: databaseUrl, BOOTSTRAP_PASSWORD: '', [variable]: String(taken.port) }),
            (error: unknown) =>
              error instanceof ConfigError &&
              error.variable === variable &&
              error.message.includes(String(taken.port)) &&
              error.message.includes(`set ${variable}`),
          );
        } finally {
          taken.server.close();
        }
        assert.equal(await organizationCount(databaseUrl), 0, 'nothing was created by the failed start');

        const next = await startTestApp({ DATABASE_URL: databaseUrl, BOOTSTRAP_PASSWORD: '' });
        try {
          const password = next.app.bootstrap?.password;
          assert.ok(password, 'the next start bootstraps');
          assert.ok(next.printed.join('').includes(password), 'and prints the generated password');
        } finally {
          await next.stop();
        }
      });
    }

    test('a BOOTSTRAP_* value that breaks a rule stops start-up before anything is created', async () => {
      const databaseUrl = await target.createUrl();
      await assert.rejects(
        startTestApp({ DATABASE_URL: databaseUrl, BOOTSTRAP_MQTT_PASSWORD: 'short' }),
        (error: unknown) => error instanceof ConfigError && error.variable === 'BOOTSTRAP_MQTT_PASSWORD',
      );
      assert.equal(await organizationCount(databaseUrl), 0);
    });
  });
}
