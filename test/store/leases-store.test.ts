import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`cluster leases on ${target.name}`, { skip: target.skip }, () => {
    test('taken when free, renewed by its holder, refused to others until it expires, released at once', async () => {
      const database = await openDatabase(await target.createUrl());
      try {
        await migrateToLatest(database);
        const { leases } = createStore(database);
        const cases: [who: string, now: number, held: boolean][] = [
          ['a', 1000, true],
          ['b', 1500, false],
          ['a', 1900, true],
          ['b', 2900, false],
          ['b', 2901, true],
          ['a', 2950, false],
        ];
        for (const [who, now, held] of cases) assert.equal(await leases.acquire('engine', who, now, 1000), held, `${who} at ${now}`);
        assert.deepEqual(await leases.get('engine'), { holder: 'b', expiresAt: 3901 });
        await leases.release('engine', 'a');
        assert.equal((await leases.get('engine'))?.holder, 'b', 'only the holder releases');
        await leases.release('engine', 'b');
        assert.equal(await leases.acquire('engine', 'a', 3000, 1000), true);
        const racers = await Promise.all(['x', 'y', 'z'].map((who) => leases.acquire('race', who, 0, 1000)));
        assert.equal(racers.filter(Boolean).length, 1, 'concurrent takers: exactly one wins');
      } finally {
        await database.close();
      }
    });
  });
}
