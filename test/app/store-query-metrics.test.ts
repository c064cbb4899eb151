/** thingdesk_store_query_duration_seconds: every store call timed by operation (module.method, never SQL), on both dialects. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { OperationHistogram } from '../../src/observability/operation-histogram.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

const name = 'thingdesk_store_query_duration_seconds';

async function callCount(server: TestApp, operation: string): Promise<number> {
  const text = await (await fetch(server.url('/metrics'))).text();
  return Number(new RegExp(`^${name}_count\\{operation="${operation.replace('.', '\\.')}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
}

describe('the operation histogram', () => {
  test('counts each observation in the first bucket whose bound it does not exceed, cumulatively, with +Inf, sum and count', async () => {
    const registry = new Registry();
    const histogram = new OperationHistogram('test_duration_seconds', 'A test histogram.', 'operation', [0.001, 0.01], registry);
    const observe = histogram.observer('things.get');
    for (const seconds of [0.001, 0.005, 0.5]) observe(seconds);
    histogram.observer('users.list')(0.0001);
    const text = await registry.getSingleMetricAsString('test_duration_seconds');
    assert.equal(
      text,
      [
        '# HELP test_duration_seconds A test histogram.',
        '# TYPE test_duration_seconds histogram',
        'test_duration_seconds_bucket{le="0.001",operation="things.get"} 1',
        'test_duration_seconds_bucket{le="0.01",operation="things.get"} 2',
        'test_duration_seconds_bucket{le="+Inf",operation="things.get"} 3',
        'test_duration_seconds_sum{operation="things.get"} 0.506',
        'test_duration_seconds_count{operation="things.get"} 3',
        'test_duration_seconds_bucket{le="0.001",operation="users.list"} 1',
        'test_duration_seconds_bucket{le="0.01",operation="users.list"} 1',
        'test_duration_seconds_bucket{le="+Inf",operation="users.list"} 1',
        'test_duration_seconds_sum{operation="users.list"} 0.0001',
        'test_duration_seconds_count{operation="users.list"} 1',
      ].join('\n'),
    );
  });
});

for (const target of storeTargets) {
  describe(`store query time on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
    });
    after(() => server?.stop());

    test('each call of a store method counts once under its operation, resolved or failed', async () => {
      const before = await callCount(server, 'organizations.count');
      for (let i = 0; i < 3; i++) await server.app.store.organizations.count();
      assert.equal(await callCount(server, 'organizations.count'), before + 3);

      // A call that fails (a duplicate organization) is timed too: slow failures are what an operator looks for.
      const failedBefore = await callCount(server, 'organizations.create');
      await assert.rejects(server.app.store.organizations.create({ id: 'acme', name: 'Acme', createdAt: 0 }));
      assert.equal(await callCount(server, 'organizations.create'), failedBefore + 1);
    });

    test('a REST request shows up under the methods it called; labels are module.method, never SQL', async () => {
      const client = new RestClient(server);
      const answer = await client.get('/things');
      assert.equal(answer.status, 200);
      assert.ok((await callCount(server, 'apiClients.getWithSecretHash')) + (await callCount(server, 'apiClients.get')) > 0);
      const text = await (await fetch(server.url('/metrics'))).text();
      assert.match(text, new RegExp(`^# TYPE ${name} histogram$`, 'm'));
      const operations = new Set([...text.matchAll(new RegExp(`^${name}_count\\{operation="([^"]*)"\\}`, 'gm'))].map((m) => m[1]!));
      assert.ok(operations.size >= 3, [...operations].join(', '));
      for (const operation of operations) assert.match(operation, /^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/, operation);
      // An operation never called has no series.
      assert.ok(!operations.has('things.release'));
    });
  });
}
