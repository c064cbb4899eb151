import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, createSqliteUrl } from '../helpers/databases.js';
import { closeMqttClients } from '../helpers/mqtt-clients.js';
import { runThingdesk } from '../helpers/run-cli.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

// Issue 32, finding 11: the store and its backups held the token-signing key and were world-readable (0644, the
// process's umask), and `thingdesk backup` wrote through a symbolic link planted at its target path.
const pathOf = (url: string) => url.slice('file:'.length);
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('the SQLite store and its backups are private files', () => {
  let server: TestApp;
  let storePath: string;
  const umask = process.umask(0o022);
  after(() => process.umask(umask));

  before(async () => {
    server = await startTestApp();
    storePath = pathOf(server.config.databaseUrl);
    await publishUplinks(server, [{ tsmId: 12100, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'T-1', temp: 21 }]);
  });
  after(() => server?.stop());

  test('a new store and its -wal and -shm are 0600 under a umask of 022', () => {
    for (const suffix of ['', '-wal', '-shm']) {
      assert.ok(existsSync(storePath + suffix), `${suffix || 'the store'} exists while the platform runs`);
      assert.equal(modeOf(storePath + suffix), '600', `${storePath}${suffix}`);
    }
  });

  test('thingdesk backup writes a 0600 file', async () => {
    const file = join(dirname(storePath), 'backup.db');
    const result = await runThingdesk(['backup', file], { DATABASE_URL: server.config.databaseUrl });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(modeOf(file), '600');
  });

  test('a symbolic link planted at the backup target is refused, dangling or not, and what it points to is untouched', async () => {
    const directory = dirname(storePath);
    const victim = join(directory, 'victim.txt');
    writeFileSync(victim, 'precious');
    chmodSync(victim, 0o644);
    const cases = [
      { link: join(directory, 'dangling.db'), target: join(directory, 'not-yet-there.db') },
      { link: join(directory, 'existing.db'), target: victim },
    ];
    for (const { link, target } of cases) {
      symlinkSync(target, link);
      const result = await runThingdesk(['backup', link], { DATABASE_URL: server.config.databaseUrl });
      assert.equal(result.code, 1, `${link}: ${result.stdout}`);
      assert.match(result.stderr, /is a symbolic link; a backup never writes through one/);
      assert.ok(lstatSync(link).isSymbolicLink(), 'the link is left as it was');
    }
    assert.equal(existsSync(join(directory, 'not-yet-there.db')), false, 'nothing created where the dangling link pointed');
    assert.equal(readFileSync(victim, 'utf8'), 'precious');
    assert.equal(modeOf(victim), '644');
  });

  test('restore into a new store path creates it 0600', async () => {
    const file = join(dirname(storePath), 'for-restore.db');
    assert.equal((await runThingdesk(['backup', file], { DATABASE_URL: server.config.databaseUrl })).code, 0);
    const target = pathOf(createSqliteUrl());
    const restored = await runThingdesk(['restore', file], { DATABASE_URL: `file:${target}` });
    assert.equal(restored.code, 0, restored.stderr);
    assert.equal(modeOf(target), '600');
  });
});

describe('a store an older version left world-readable', () => {
  test('is made 0600 at start, with its -wal and -shm', async () => {
    const url = createSqliteUrl();
    const first = await startTestApp({ DATABASE_URL: url });
    await first.stop();
    const path = pathOf(url);
    chmodSync(path, 0o644);
    const second = await startTestApp({ DATABASE_URL: url });
    try {
      for (const suffix of ['', '-wal', '-shm']) assert.equal(modeOf(path + suffix), '600', `${path}${suffix}`);
    } finally {
      await second.stop();
    }
  });
});
