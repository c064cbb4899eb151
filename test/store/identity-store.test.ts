import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/store/database.js';
import type { Store } from '../../src/store/store.js';
import { DuplicateKeyError } from '../../src/domain/errors.js';
import { cleanupStores, openMigratedStore, storeTargets } from '../helpers/databases.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`identity store on ${target.name}`, { skip: target.skip }, () => {
    let database: Database;
    let store: Store;
    before(async () => {
      ({ database, store } = await openMigratedStore(await target.createUrl()));
    });
    after(() => database?.close());

    test('organizations: create, get, get by name ignoring case, list, count, duplicates refused', async () => {
      await store.organizations.create({ id: 'acme', name: 'Acme', createdAt: 1_700_000_000_000 });
      assert.deepEqual(await store.organizations.get('acme'), { id: 'acme', name: 'Acme', createdAt: 1_700_000_000_000 });
      assert.equal((await store.organizations.getByName('ACME'))?.id, 'acme');
      assert.equal(await store.organizations.get('nope'), undefined);
      await assert.rejects(store.organizations.create({ id: 'acme-2', name: 'acme', createdAt: 1 }), DuplicateKeyError);
      await assert.rejects(store.organizations.create({ id: 'acme', name: 'Other', createdAt: 1 }), DuplicateKeyError);
      assert.equal(await store.organizations.count(), 1);
      assert.deepEqual(
        (await store.organizations.list()).map((o) => o.id),
        ['acme'],
      );
    });

    test('users: e-mail unique per organization ignoring case; role update and delete scoped to the organization', async () => {
      await store.organizations.create({ id: 'u-org', name: 'U Org', createdAt: 1 });
      await store.organizations.create({ id: 'u-other', name: 'U Other', createdAt: 1 });
      const user = { id: 'user-1', organizationId: 'u-org', email: 'Ann@Example.com', role: 'Viewer' as const, createdAt: 5 };
      await store.users.create(user, 'hash');
      await assert.rejects(store.users.create({ ...user, id: 'user-2', email: 'ann@example.com' }, 'hash'), DuplicateKeyError);
      await store.users.create({ ...user, id: 'user-3', organizationId: 'u-other' }, 'hash');
      const found = await store.users.getWithPasswordHashByEmail('u-org', 'ANN@example.com');
      assert.equal(found?.id, 'user-1');
      assert.equal(found?.passwordHash, 'hash');
      assert.equal(await store.users.updateRole('u-other', 'user-1', 'Manager'), false);
      assert.equal(await store.users.updateRole('u-org', 'user-1', 'Manager'), true);
      assert.equal((await store.users.get('u-org', 'user-1'))?.role, 'Manager');
      assert.equal(await store.users.delete('u-other', 'user-1'), false);
      assert.equal(await store.users.delete('u-org', 'user-1'), true);
      assert.deepEqual(await store.users.list('u-org'), []);
    });

    test('API clients and MQTT credentials: revoke once, scoped to the organization', async () => {
      await store.organizations.create({ id: 'c-org', name: 'C Org', createdAt: 1 });
      await store.apiClients.create({ clientId: 'c1', organizationId: 'c-org', name: 'n', createdAt: 1, revokedAt: null }, 'h');
      assert.equal(await store.apiClients.revoke('c1', 10, 'other-org'), false);
      assert.equal(await store.apiClients.revoke('c1', 10, 'c-org'), true);
      assert.equal(await store.apiClients.revoke('c1', 11), false);
      assert.equal((await store.apiClients.get('c1'))?.revokedAt, 10);
      await store.mqttCredentials.create({ username: 'gw', organizationId: 'c-org', kind: 'gateway', createdAt: 1, revokedAt: null }, 'h');
      await assert.rejects(
        store.mqttCredentials.create({ username: 'gw', organizationId: 'c-org', kind: 'gateway', createdAt: 1, revokedAt: null }, 'h'),
        DuplicateKeyError,
      );
      assert.equal((await store.mqttCredentials.getWithPasswordHash('gw'))?.kind, 'gateway');
      assert.equal(await store.mqttCredentials.revoke('gw', 20), true);
      assert.deepEqual(
        (await store.mqttCredentials.list('c-org')).map((c) => c.revokedAt),
        [20],
      );
    });

    test('millisecond timestamps come back as numbers, not strings', async () => {
      const created = 1_795_347_974_161;
      await store.organizations.create({ id: 'time-org', name: 'Time', createdAt: created });
      const organization = await store.organizations.get('time-org');
      assert.equal(typeof organization?.createdAt, 'number');
      assert.equal(organization?.createdAt, created);
    });
  });
}
