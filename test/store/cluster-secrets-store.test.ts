import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`cluster secrets on ${target.name}`, { skip: target.skip }, () => {
    test('a secret is made once: instances asking together, or later, all get the same 32 bytes', async () => {
      const database = await openDatabase(await target.createUrl());
      try {
        await migrateToLatest(database);
        const { clusterSecrets } = createStore(database);
        const racers = await Promise.all([1, 2, 3].map((now) => clusterSecrets.getOrCreate('live-relay-hmac', now)));
        assert.equal(racers[0]!.length, 32);
        assert.ok(
          racers.every((secret) => secret.equals(racers[0]!)),
          'one secret for all',
        );
        assert.ok((await clusterSecrets.getOrCreate('live-relay-hmac', 9)).equals(racers[0]!), 'and the same later');
        assert.ok(!(await clusterSecrets.getOrCreate('other', 9)).equals(racers[0]!), 'another name, another secret');
      } finally {
        await database.close();
      }
    });
  });
}
