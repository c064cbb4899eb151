import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createSqliteUrl, cleanupStores, postgresSkipReason } from '../helpers/databases.js';
import { connectMqtt, closeMqttClients } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { runThingdesk } from '../helpers/run-cli.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';
import { publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const t0 = 1_790_000_000;
const pathOf = (url: string) => url.slice('file:'.length);
/** A path in a fresh temporary directory (removed after the file). */
const freshPath = (name: string) => join(pathOf(createSqliteUrl()), '..', name);

/** `thingdesk ...` as its own process, as an operator runs it beside the platform. */
async function thingdeskProcess(args: string[], env: Record<string, string>) {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', main, ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
  });
  return { stdout, stderr };
}

describe('backup and restore of a SQLite store', () => {
  let live: TestApp;
  let restored: TestApp | undefined;
  let backupFile: string;
  let ackedBeforeBackup = 0;
  let ackedAfterBackup = 0;

  before(async () => {
    live = await startTestApp();
    // A steady thing (its messages all before the backup) and a busy one, reporting while the backup runs.
    await publishUplinks(
      live,
      Array.from({ length: 50 }, (_, i) => ({ tsmId: 12100, tsmEv: 10, tsmTs: t0 + i, tsmTuid: 'STEADY-1', temp: i / 2 })),
    );
    const gateway = await connectMqtt(live.mqttUrl, {
      username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
      password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
    });
    let acked = 0;
    let backupRunning = true;
    // Sequential QoS 1 arrays: each is acknowledged after its commit, and commits follow tsmTs.
    const publisher = (async () => {
      for (let n = 0; backupRunning || acked < ackedAfterBackup + 5; n++) {
        const array = Array.from({ length: 5 }, (_, i) => ({ tsmId: 1110, tsmEv: 10, tsmTs: t0 + n * 5 + i, tsmTuid: 'BUSY-1', batl: 50 }));
        await gateway.publishAsync('thingdesk/acme/up/GW-1', JSON.stringify(array), { qos: 1 });
        acked = n + 1;
        // A gateway's pace, not a flood: the arrays stay countable (a few hundred while the backup process runs).
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    while (acked < 5) await new Promise((resolve) => setTimeout(resolve, 10));
    ackedBeforeBackup = acked;
    backupFile = freshPath('backup.db');
    const { stdout } = await thingdeskProcess(['backup', backupFile, '--json'], { DATABASE_URL: live.config.databaseUrl });
    ackedAfterBackup = acked;
    backupRunning = false;
    await publisher;
    const report = JSON.parse(stdout) as { pages: number; bytes: number };
    assert.ok(report.pages > 0 && report.bytes > 0, stdout);
  });
  after(async () => {
    await restored?.stop();
    await live?.stop();
  });

  test('uplinks were acknowledged while the backup ran', () => {
    assert.ok(ackedAfterBackup > ackedBeforeBackup, `${ackedBeforeBackup} arrays acknowledged before, ${ackedAfterBackup} after`);
  });

  test('the backup restores into an empty store that answers the same reads as of one commit', async () => {
    const storeUrl = `file:${freshPath('restored.db')}`;
    const restore = await runThingdesk(['restore', backupFile], { DATABASE_URL: storeUrl });
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, /^Restored the store\n/);
    // The signing keys in the copy are sealed under the live store's key file, which a backup never holds: it is
    // put beside the restored store, as docs/operations.md tells (or SIGNING_KEY_SEALING_KEY given).
    copyFileSync(`${pathOf(live.config.databaseUrl)}.sealing-key`, `${pathOf(storeUrl)}.sealing-key`);
    restored = await startTestApp({ DATABASE_URL: storeUrl });
    const before = new RestClient(live);
    const after = new RestClient(restored);

    assert.deepEqual(
      (await after.get('/things')).body.data.things.map((t: { tuid: string }) => t.tuid),
      ['BUSY-1', 'STEADY-1'],
    );
    const steady = '/things/STEADY-1/messages?limit=100';
    assert.deepEqual((await after.get(steady)).body, (await before.get(steady)).body, 'a thing finished before the backup: the same list');
    assert.deepEqual((await after.get('/things/STEADY-1')).body, (await before.get('/things/STEADY-1')).body);

    // The busy thing: the restored store holds a prefix of what the live one committed, at least every array
    // acknowledged before the backup started, and its summary agrees with its newest message (one transaction).
    const liveBusy = (await before.get('/things/BUSY-1/messages?limit=10000')).body.data as { tsmTs: number }[];
    const restoredBusy = (await after.get('/things/BUSY-1/messages?limit=10000')).body.data as { tsmTs: number }[];
    assert.ok(
      restoredBusy.length >= ackedBeforeBackup * 5,
      `${restoredBusy.length} messages restored, ${ackedBeforeBackup * 5} acknowledged before`,
    );
    assert.ok(restoredBusy.length < liveBusy.length, 'the live store went on after the backup');
    assert.equal(restoredBusy.length % 5, 0, 'whole arrays: each commit is in the copy or not');
    assert.deepEqual(restoredBusy, liveBusy.slice(liveBusy.length - restoredBusy.length), 'the oldest messages, identical');
    const summary = (await after.get('/things/BUSY-1')).body.data as { timestamp: number };
    assert.equal(summary.timestamp, restoredBusy[0]!.tsmTs);

    const exportText = async (client: RestClient) => (await client.get('/things/STEADY-1/messages/export?format=csv&messageid=12100')).text;
    assert.equal(await exportText(after), await exportText(before));
  });

  test('restore refuses a store that is not empty, naming DATABASE_URL, and changes nothing', async () => {
    const refused = await runThingdesk(['restore', backupFile], { DATABASE_URL: live.config.databaseUrl });
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^thingdesk: the store DATABASE_URL names \(.+\) is not empty \(\d+ tables\); restore only into an empty store/,
    );
    assert.equal((await new RestClient(live).get('/things/BUSY-1')).status, 200);
  });

  test('restore refuses a file that is not a thingdesk store; backup refuses to overwrite a file', async () => {
    const junk = freshPath('junk.db');
    writeFileSync(junk, 'not a database at all, just text that is long enough to have a header');
    const notStore = await runThingdesk(['restore', junk], { DATABASE_URL: `file:${freshPath('target.db')}` });
    assert.equal(notStore.code, 1);
    assert.match(notStore.stderr, /is not a thingdesk SQLite store/);
    const missing = await runThingdesk(['restore', freshPath('none.db')], { DATABASE_URL: `file:${freshPath('target.db')}` });
    assert.match(missing.stderr, /does not exist/);
    const overwrite = await runThingdesk(['backup', backupFile], { DATABASE_URL: live.config.databaseUrl });
    assert.equal(overwrite.code, 1);
    assert.match(overwrite.stderr, /already exists; a backup never overwrites a file/);
    const memory = await runThingdesk(['backup', freshPath('m.db')], { DATABASE_URL: 'file::memory:' });
    assert.match(memory.stderr, /in-memory SQLite store/);
  });
});

describe('backup and restore on PostgreSQL', { skip: postgresSkipReason }, () => {
  test('both refuse (exit 1) and name the PostgreSQL tools, without touching the store', async () => {
    for (const command of ['backup', 'restore']) {
      const result = await runThingdesk([command, freshPath('pg.dump')], { DATABASE_URL: process.env.TEST_DATABASE_URL! });
      assert.equal(result.code, 1, command);
      assert.match(
        result.stderr,
        new RegExp(`^thingdesk: ${command}: DATABASE_URL names a PostgreSQL store: .*pg_dump.*pg_basebackup`),
        command,
      );
    }
  });
});
