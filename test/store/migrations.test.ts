import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations/index.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`migrations on ${target.name}`, { skip: target.skip }, () => {
    test('an empty store migrates to the newest schema, and a second run applies nothing', async () => {
      const database = await openDatabase(await target.createUrl());
      try {
        const first = await migrateToLatest(database);
        assert.deepEqual(first.applied, Object.keys(migrations));
        const second = await migrateToLatest(database);
        assert.deepEqual(second.applied, []);
        const tables = (await database.db.introspection.getTables()).map((t) => t.name);
        for (const table of ['organizations', 'users', 'api_clients', 'mqtt_credentials', 'signing_keys']) {
          assert.ok(tables.includes(table), `table ${table} exists`);
        }
      } finally {
        await database.close();
      }
    });

    test('concurrent migrations from two connections apply each migration once', async () => {
      const url = await target.createUrl();
      const [a, b] = await Promise.all([openDatabase(url), openDatabase(url)]);
      try {
        const [ra, rb] = await Promise.all([migrateToLatest(a), migrateToLatest(b)]);
        assert.deepEqual([...ra.applied, ...rb.applied].sort(), Object.keys(migrations).sort());
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  });
}
