import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { AppError } from '../../../src/domain/errors.js';
import {
  createApiClient,
  createMqttCredential,
  createOrganization,
  createUser,
  revokeApiClient,
  revokeMqttCredential,
  type IdentityDeps,
} from '../../../src/domain/identity/identity-service.js';
import { verifyPassword, verifySecret } from '../../../src/domain/identity/secrets.js';
import type { Database } from '../../../src/store/database.js';
import type { Store } from '../../../src/store/store.js';
import { cleanupStores, openMigratedStore, storeTargets } from '../../helpers/databases.js';

after(cleanupStores);

function assertAppError(code: string, fields: string[] = []) {
  return (error: unknown) => {
    assert.ok(error instanceof AppError, `expected AppError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.deepEqual(
      error.errors.map((e) => e.field),
      fields,
    );
    return true;
  };
}

for (const target of storeTargets) {
  describe(`identity on ${target.name}`, { skip: target.skip }, () => {
    let database: Database;
    let deps: IdentityDeps;
    before(async () => {
      let store: Store;
      ({ database, store } = await openMigratedStore(await target.createUrl()));
      deps = { store, clock: new ManualClock() };
    });
    after(() => database?.close());

    test('an organization id is a slug derived from the name; bad names and ids are refused; names are unique', async () => {
      const organization = await createOrganization(deps, { name: '  Acme Water Oy ' });
      assert.equal(organization.id, 'acme-water-oy');
      assert.equal(organization.name, 'Acme Water Oy');
      await assert.rejects(createOrganization(deps, { name: 'ACME WATER OY', id: 'other' }), assertAppError('CONFLICT'));
      await assert.rejects(createOrganization(deps, { name: 'X', id: 'Not_A_Slug' }), assertAppError('VALIDATION_FAILED', ['id']));
      await assert.rejects(createOrganization(deps, { name: 'Y', id: 'a'.repeat(41) }), assertAppError('VALIDATION_FAILED', ['id']));
      await assert.rejects(createOrganization(deps, { name: '   ' }), assertAppError('VALIDATION_FAILED', ['name']));
      assert.equal((await createOrganization(deps, { name: 'Beta', id: 'beta-1' })).id, 'beta-1');
    });

    test('users get argon2id hashes; bad e-mail, short password and unknown role are named', async () => {
      const user = await createUser(deps, {
        organizationId: 'acme-water-oy',
        email: 'ann@example.com',
        password: 'correct horse',
        role: 'installer',
      });
      assert.equal(user.role, 'Installer');
      const stored = await deps.store.users.getWithPasswordHashByEmail('acme-water-oy', 'ann@example.com');
      assert.match(stored!.passwordHash, /^\$argon2id\$/);
      assert.equal(await verifyPassword(stored!.passwordHash, 'correct horse'), true);
      assert.equal(await verifyPassword(stored!.passwordHash, 'wrong horse'), false);
      await assert.rejects(
        createUser(deps, { organizationId: 'acme-water-oy', email: 'not-an-email', password: 'short', role: 'Owner' }),
        assertAppError('VALIDATION_FAILED', ['email', 'password', 'role']),
      );
      await assert.rejects(
        createUser(deps, { organizationId: 'acme-water-oy', email: 'ANN@example.com', password: 'correct horse', role: 'Viewer' }),
        assertAppError('CONFLICT'),
      );
      await assert.rejects(
        createUser(deps, { organizationId: 'no-such-org', email: 'bob@example.com', password: 'correct horse', role: 'Viewer' }),
        assertAppError('NOT_FOUND'),
      );
    });

    test('API client secrets are generated, shown once and stored as a salted HMAC; revoke works once per organization', async () => {
      const { client, clientSecret } = await createApiClient(deps, { organizationId: 'acme-water-oy', name: 'dashboard' });
      assert.match(client.clientId, /^client-[0-9a-f]{12}$/);
      assert.ok(clientSecret.length >= 43);
      const stored = await deps.store.apiClients.getWithSecretHash(client.clientId);
      assert.ok(!stored!.secretHash.includes(clientSecret));
      assert.equal(verifySecret(stored!.secretHash, clientSecret), true);
      assert.equal(verifySecret(stored!.secretHash, `${clientSecret}x`), false);
      await assert.rejects(
        createApiClient(deps, { organizationId: 'acme-water-oy', name: 'x', clientId: 'has space', clientSecret: 'short' }),
        assertAppError('VALIDATION_FAILED', ['clientId', 'clientSecret']),
      );
      await assert.rejects(revokeApiClient(deps, { clientId: client.clientId, organizationId: 'beta-1' }), assertAppError('NOT_FOUND'));
      await revokeApiClient(deps, { clientId: client.clientId, organizationId: 'acme-water-oy' });
      await assert.rejects(revokeApiClient(deps, { clientId: client.clientId }), assertAppError('NOT_FOUND'));
    });

    test('MQTT credentials have a kind and an argon2id password; unknown kinds are refused', async () => {
      const { credential, password } = await createMqttCredential(deps, { organizationId: 'acme-water-oy', kind: 'INTEGRATION' });
      assert.equal(credential.kind, 'integration');
      assert.match(credential.username, /^integration-[0-9a-f]{12}$/);
      const stored = await deps.store.mqttCredentials.getWithPasswordHash(credential.username);
      assert.equal(await verifyPassword(stored!.passwordHash, password), true);
      await assert.rejects(
        createMqttCredential(deps, { organizationId: 'acme-water-oy', kind: 'sensor' }),
        assertAppError('VALIDATION_FAILED', ['kind']),
      );
      await assert.rejects(
        createMqttCredential(deps, { organizationId: 'acme-water-oy', kind: 'gateway', username: 'gw/1' }),
        assertAppError('VALIDATION_FAILED', ['username']),
      );
      await revokeMqttCredential(deps, { username: credential.username });
      await assert.rejects(revokeMqttCredential(deps, { username: credential.username }), assertAppError('NOT_FOUND'));
    });
  });
}
