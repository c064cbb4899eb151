import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/store/database.js';
import { createStore } from '../../src/store/store.js';
import { verifyPassword, verifySecret } from '../../src/domain/identity/secrets.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { runThingdesk } from '../helpers/run-cli.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`CLI on ${target.name}`, { skip: target.skip }, () => {
    let env: Record<string, string>;
    before(async () => {
      env = { DATABASE_URL: await target.createUrl() };
    });

    async function withStore<T>(work: (store: ReturnType<typeof createStore>) => Promise<T>): Promise<T> {
      const database = await openDatabase(env.DATABASE_URL!);
      try {
        return await work(createStore(database));
      } finally {
        await database.close();
      }
    }

    test('migrate applies the migrations once, readably and as JSON', async () => {
      const first = await runThingdesk(['migrate'], env);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /^Applied migrations\n {2}applied {2}0001-identity/);
      const second = await runThingdesk(['migrate', '--json'], env);
      assert.deepEqual(JSON.parse(second.stdout), { applied: 'none' });
    });

    test('org create prints the new organization; a duplicate name fails with a clear line', async () => {
      const created = await runThingdesk(['org', 'create', '--name', 'Acme Water', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      assert.deepEqual(JSON.parse(created.stdout), { organizationId: 'acme-water', name: 'Acme Water' });
      const readable = await runThingdesk(['org', 'create', '--name', 'Beta', '--id', 'beta'], env);
      assert.match(readable.stdout, /Created organization\n {2}organizationId {2}beta\n {2}name {12}Beta\n/);
      const duplicate = await runThingdesk(['org', 'create', '--name', 'acme water'], env);
      assert.equal(duplicate.code, 1);
      assert.match(duplicate.stderr, /^thingdesk: An organization named "acme water"/);
    });

    test('user create hashes the password, prints a generated one once, and names bad options', async () => {
      const created = await runThingdesk(
        ['user', 'create', '--org', 'acme-water', '--email', 'ann@acme.test', '--role', 'Installer', '--json'],
        env,
      );
      assert.equal(created.code, 0, created.stderr);
      const user = JSON.parse(created.stdout) as { email: string; role: string; password: string };
      assert.equal(user.role, 'Installer');
      const stored = await withStore((store) => store.users.getWithPasswordHashByEmail('acme-water', 'ann@acme.test'));
      assert.equal(await verifyPassword(stored!.passwordHash, user.password), true);

      const chosen = await runThingdesk(
        ['user', 'create', '--org', 'acme-water', '--email', 'bob@acme.test', '--password', 'bobs password', '--json'],
        env,
      );
      assert.equal('password' in JSON.parse(chosen.stdout), false, 'a chosen password is not echoed');

      const bad = await runThingdesk(
        ['user', 'create', '--org', 'acme-water', '--email', 'nope', '--role', 'Boss', '--password', 'x'],
        env,
      );
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /email: email must be an e-mail address/);
      assert.match(bad.stderr, /role: role must be one of Manager, Installer, Viewer/);
      const unknownOrg = await runThingdesk(['user', 'create', '--org', 'ghost', '--email', 'c@acme.test'], env);
      assert.match(unknownOrg.stderr, /No organization with id ghost/);
    });

    test('client create prints the secret once; client revoke revokes it; revoking again fails', async () => {
      const created = await runThingdesk(['client', 'create', '--org', 'acme-water', '--name', 'dashboard', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      const client = JSON.parse(created.stdout) as { clientId: string; clientSecret: string };
      const stored = await withStore((store) => store.apiClients.getWithSecretHash(client.clientId));
      assert.equal(verifySecret(stored!.secretHash, client.clientSecret), true);

      const revoked = await runThingdesk(['client', 'revoke', client.clientId], env);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.match(revoked.stdout, /Revoked API client/);
      assert.ok((await withStore((store) => store.apiClients.get(client.clientId)))!.revokedAt);
      const again = await runThingdesk(['client', 'revoke', client.clientId], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /No active API client/);
    });

    test('mqtt-credential create makes gateway and integration credentials', async () => {
      const gateway = await runThingdesk(['mqtt-credential', 'create', '--org', 'acme-water', '--username', 'gw-1', '--json'], env);
      assert.equal(gateway.code, 0, gateway.stderr);
      const printed = JSON.parse(gateway.stdout) as { username: string; kind: string; password: string };
      assert.equal(printed.kind, 'gateway');
      const stored = await withStore((store) => store.mqttCredentials.getWithPasswordHash('gw-1'));
      assert.equal(await verifyPassword(stored!.passwordHash, printed.password), true);
      const integration = await runThingdesk(['mqtt-credential', 'create', '--org', 'acme-water', '--kind', 'integration'], env);
      assert.match(integration.stdout, /kind +integration/);
      const bad = await runThingdesk(['mqtt-credential', 'create', '--org', 'acme-water', '--kind', 'camera'], env);
      assert.match(bad.stderr, /kind: kind must be one of gateway, integration/);
    });

    test('keys rotate creates a new signing key and lists the one still verifying', async () => {
      const first = await runThingdesk(['keys', 'rotate', '--json'], env);
      assert.equal(first.code, 0, first.stderr);
      const second = await runThingdesk(['keys', 'rotate', '--json'], env);
      const a = JSON.parse(first.stdout) as { kid: string };
      const b = JSON.parse(second.stdout) as { kid: string; stillVerifying: string };
      assert.notEqual(a.kid, b.kid);
      assert.ok(b.stillVerifying.includes(a.kid));
    });
  });
}

describe('CLI errors', () => {
  test('a configuration error prints one line naming the variable and exits 2', async () => {
    const result = await runThingdesk(['migrate'], { DATABASE_URL: 'mysql://x' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^thingdesk: configuration error: DATABASE_URL: .+\n$/);
  });

  test("an unknown command is refused with commander's message", async () => {
    const result = await runThingdesk(['frobnicate'], {});
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /unknown command 'frobnicate'/);
  });

  test('a missing required option is named', async () => {
    const result = await runThingdesk(['org', 'create'], {});
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /required option '--name <name>' not specified/);
  });
});
