/**
 * The deployment is visible (issue 18): instances register and heartbeat in the store; `thingdesk status` lists
 * them with version, start, broker, leases; a clean stop deregisters; a silent one shows as such; /metrics names
 * the instance.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { packageVersion } from '../../src/app/package-version.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { runThingdesk } from '../helpers/run-cli.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

interface StatusJson {
  instances: { id: string; version: string; host: string; live: boolean; startedAt: number; leases: string[]; details: { mqtt: string } }[];
}

async function status(databaseUrl: string): Promise<StatusJson> {
  const result = await runThingdesk(['status', '--json'], { ...testBootstrap, DATABASE_URL: databaseUrl });
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as StatusJson;
}

describe('thingdesk status on SQLite', () => {
  test('says that a SQLite store has one process and no register, rather than listing nothing', async () => {
    const server = await startTestApp();
    try {
      const text = await runThingdesk(['status'], { ...testBootstrap, DATABASE_URL: server.config.databaseUrl });
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /instances register only on PostgreSQL/);
      assert.deepEqual((await status(server.config.databaseUrl)).instances, []);
    } finally {
      await server.stop();
    }
  });
});

for (const target of storeTargets.filter((candidate) => candidate.name === 'postgres')) {
  describe(`thingdesk status on ${target.name}`, { skip: target.skip }, () => {
    test(
      'lists the live instances with their version and leases; a clean stop removes one; a silent one is shown silent',
      { timeout: 60_000 },
      async () => {
        const databaseUrl = await target.createUrl();
        const count = 2;
        const apps: TestApp[] = [];
        try {
          for (let i = 0; i < count; i++) apps.push(await startTestApp({ DATABASE_URL: databaseUrl }));
          const listed = await status(databaseUrl);
          assert.deepEqual(listed.instances.map((instance) => instance.id).sort(), apps.map((app) => app.app.instanceId).sort());
          for (const instance of listed.instances) {
            assert.equal(instance.live, true);
            assert.equal(instance.version, packageVersion);
            assert.equal(instance.details.mqtt, 'embedded');
            assert.ok(instance.startedAt <= Date.now() && instance.startedAt > Date.now() - 60_000);
          }
          // The alert engine's timer runs on exactly one instance, and the status says which.
          assert.equal(listed.instances.filter((instance) => instance.leases.includes('alert-engine')).length, 1, JSON.stringify(listed));

          const metrics = await (await fetch(apps[0]!.url('/metrics'))).text();
          assert.ok(metrics.includes(`thingdesk_instance_info{instance_id="${apps[0]!.app.instanceId}"} 1`), 'the instance id on /metrics');

          // A process that died without deregistering: its last heartbeat a minute ago.
          await apps[0]!.app.store.instances.heartbeat({
            id: 'crashed-1',
            version: '0.0.1',
            host: 'gone',
            startedAt: Date.now() - 120_000,
            heartbeatAt: Date.now() - 60_000,
            details: { mqtt: 'external' },
          });
          const withSilent = await status(databaseUrl);
          assert.deepEqual(withSilent.instances.find((instance) => instance.id === 'crashed-1')?.live, false);
          const text = await runThingdesk(['status'], { ...testBootstrap, DATABASE_URL: databaseUrl });
          assert.match(text.stdout, new RegExp(`${count} live of ${count + 1} registered`));
          assert.match(text.stdout, /crashed-1 {2}SILENT for 6\d s/);

          const stopped = apps.pop()!;
          await stopped.stop();
          assert.ok(
            !(await status(databaseUrl)).instances.some((instance) => instance.id === stopped.app.instanceId),
            'a clean stop deregisters',
          );
        } finally {
          for (const app of apps) await app.stop();
        }
      },
    );
  });
}
