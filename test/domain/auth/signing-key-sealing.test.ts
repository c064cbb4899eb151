import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ConfigError } from '../../../src/config/config-error.js';
import { unsealSecret } from '../../../src/domain/identity/secrets.js';
import { openDatabase } from '../../../src/store/database.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { runThingdesk } from '../../helpers/run-cli.js';
import { startTestApp } from '../../helpers/test-app.js';

after(cleanupStores);

// Issue 32, finding 11: the store held the Ed25519 signing keys in plain text (`private_jwk.d`), so whoever could
// read the store or a backup could mint tokens. They are sealed under a key kept outside the store.

const newKey = () => randomBytes(32).toString('base64');
const main = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));

/**
 * `thingdesk serve` as an operator starts it, expected to fail: its exit code and what it printed. A platform that
 * starts anyway is killed after a minute (the test then fails on the code) instead of serving on.
 */
async function serveExpectingFailure(env: Record<string, string>): Promise<{ code: unknown; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, ['--import', 'tsx', main, 'serve'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'silent', ...env },
      timeout: 60_000,
    });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { code: unknown; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

/** The signing keys as the store holds them, read with a connection of the test's own (the platform stopped). */
async function storedKeys(url: string): Promise<{ kid: string; private_jwk: string }[]> {
  const database = await openDatabase(url);
  try {
    return await database.db.selectFrom('signing_keys').select(['kid', 'private_jwk']).orderBy('kid').execute();
  } finally {
    await database.close();
  }
}

/** Puts the keys back in plain text, as a version before the sealing left them. */
async function unsealStoredKeys(url: string, key: string): Promise<void> {
  const database = await openDatabase(url);
  try {
    for (const row of await database.db.selectFrom('signing_keys').select(['kid', 'private_jwk']).execute()) {
      const plain = unsealSecret(key, row.private_jwk);
      await database.db.updateTable('signing_keys').set({ private_jwk: plain }).where('kid', '=', row.kid).execute();
    }
  } finally {
    await database.close();
  }
}

const isSealedElsewhere = (error: unknown) =>
  error instanceof ConfigError && error.variable === 'SIGNING_KEY_SEALING_KEY' && /sealed under another key/.test(error.message);

for (const target of storeTargets) {
  describe(`signing keys sealed at rest on ${target.name}`, { skip: target.skip }, () => {
    // SQLite with no setting: the key file beside the store, as `npm start` runs; PostgreSQL: the setting.
    const sqlite = target.name === 'sqlite';
    const setting = sqlite ? '' : newKey();
    const keyFileOf = (url: string) => `${url.slice('file:'.length)}.sealing-key`;
    const sealingKeyOf = (url: string) => (sqlite ? readFileSync(keyFileOf(url), 'utf8').trim() : setting);

    test('after start the stored private_jwk holds no private part in plain text', async () => {
      const url = await target.createUrl();
      const server = await startTestApp({ DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: setting });
      await server.stop();
      const rows = await storedKeys(url);
      assert.equal(rows.length, 1);
      for (const row of rows) {
        // Quoted: the sealed text is base64url, which holds no quote but may spell OKP by chance (it did, once).
        assert.doesNotMatch(row.private_jwk, /"d"|"kty"|"OKP"/, 'no JWK member readable');
        assert.match(row.private_jwk, /^aes-256-gcm\$/);
        assert.match(unsealSecret(sealingKeyOf(url), row.private_jwk), /"d":"[A-Za-z0-9_-]{43}"/, 'the key itself, once unsealed');
      }
      if (sqlite) assert.equal((statSync(keyFileOf(url)).mode & 0o777).toString(8), '600', 'the key file is private');
    });

    test('a store an older version left in plain text is sealed at start; the tokens it issued still verify', async () => {
      const url = await target.createUrl();
      const first = await startTestApp({ DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: setting });
      const token = await new RestClient(first).accessToken();
      await first.stop();
      await unsealStoredKeys(url, sealingKeyOf(url));
      const plain = await storedKeys(url);
      assert.match(plain[0]!.private_jwk, /"d":/, 'the store as an older version left it');

      const second = await startTestApp({ DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: setting });
      try {
        const answer = await fetch(second.url('/api/v1/things'), { headers: { authorization: `Bearer ${token}` } });
        assert.equal(answer.status, 200, 'a token signed before the migration');
        const sealed = await storedKeys(url);
        assert.deepEqual(
          sealed.map((row) => row.kid),
          plain.map((row) => row.kid),
          'the same keys, no new one',
        );
        assert.match(sealed[0]!.private_jwk, /^aes-256-gcm\$/);
        assert.equal(unsealSecret(sealingKeyOf(url), sealed[0]!.private_jwk), plain[0]!.private_jwk);
      } finally {
        await second.stop();
      }
    });

    test('a start with the wrong sealing key fails naming SIGNING_KEY_SEALING_KEY and changes nothing', async () => {
      const url = await target.createUrl();
      const first = await startTestApp({ DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: setting });
      await first.stop();
      const before = await storedKeys(url);
      await assert.rejects(startTestApp({ DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: newKey() }), isSealedElsewhere);
      const serve = await serveExpectingFailure({ DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: newKey() });
      assert.equal(serve.code, 2);
      assert.match(
        serve.stderr,
        /^thingdesk: configuration error: SIGNING_KEY_SEALING_KEY: does not open them: .*sealed under another key.*\n$/,
      );
      const rotate = await runThingdesk(['keys', 'rotate'], { DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: newKey() });
      assert.equal(rotate.code, 2, 'the CLI seals as the platform does');
      assert.deepEqual(await storedKeys(url), before);
    });

    if (sqlite) {
      test('sealed keys and no key (the key file gone): start fails naming the variable, and leaves no new key file', async () => {
        const url = await target.createUrl();
        const first = await startTestApp({ DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: '' });
        await first.stop();
        const key = sealingKeyOf(url);
        rmSync(keyFileOf(url));
        await assert.rejects(startTestApp({ DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: '' }), (error: unknown) => {
          assert.ok(isSealedElsewhere(error), String(error));
          assert.match((error as Error).message, /there is no key file .*\.sealing-key/);
          return true;
        });
        assert.equal(existsSync(keyFileOf(url)), false);
        // The key given as the setting opens the store, as the key file did.
        const withSetting = await startTestApp({ DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: key });
        await withSetting.stop();
      });

      test('a sealing key lost for good: keys reset replaces the keys under a new key file, and the platform starts', async () => {
        const url = await target.createUrl();
        const first = await startTestApp({ DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: '' });
        const token = await new RestClient(first).accessToken();
        await first.stop();
        const [old] = await storedKeys(url);
        rmSync(keyFileOf(url));
        const reset = await runThingdesk(['keys', 'reset', '--json'], { DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: '' });
        assert.equal(reset.code, 0, reset.stderr);
        const [replaced, ...others] = await storedKeys(url);
        assert.equal(others.length, 0, 'only the new key');
        assert.equal(replaced!.kid, (JSON.parse(reset.stdout) as { kid: string }).kid);
        assert.notEqual(replaced!.kid, old!.kid);
        assert.match(unsealSecret(sealingKeyOf(url), replaced!.private_jwk), /"d":/, 'sealed under the new key file');
        const second = await startTestApp({ DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: '' });
        try {
          const answer = await fetch(second.url('/api/v1/things'), { headers: { authorization: `Bearer ${token}` } });
          assert.equal(answer.status, 401, 'a token of the replaced keys no longer verifies');
          assert.equal((await new RestClient(second).get('/things')).status, 200);
        } finally {
          await second.stop();
        }
      });
    } else {
      test('no key on PostgreSQL: start fails naming the variable (instances must share one)', async () => {
        const url = await target.createUrl();
        const serve = await serveExpectingFailure({ DATABASE_URL: url, SIGNING_KEY_SEALING_KEY: '' });
        assert.equal(serve.code, 2);
        assert.match(serve.stderr, /^thingdesk: configuration error: SIGNING_KEY_SEALING_KEY: is required with PostgreSQL.*\n$/);
      });
    }
  });
}
