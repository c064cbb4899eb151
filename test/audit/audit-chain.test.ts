/** SPEC 14: tamper evidence (changed, removed, inserted, last removed) by direct SQL, the CLI, secrets, who reads. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../../src/store/database.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { signInAs } from '../helpers/graphql-users.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { RestClient } from '../helpers/rest-client.js';
import { runThingdesk } from '../helpers/run-cli.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients } from '../helpers/uplinks.js';
import { entriesOf } from './audit-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const marker = `MARK${Date.now().toString(36)}`;

for (const target of storeTargets) {
  describe(`the audit chain on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let url: string;
    let rest: RestClient;
    before(async () => {
      url = await target.createUrl();
      server = await startTestApp({
        DATABASE_URL: url,
        BOOTSTRAP_PASSWORD: `${marker}-bootstrap-password`,
        BOOTSTRAP_CLIENT_SECRET: `${marker}-bootstrap-client-secret-0123`,
        BOOTSTRAP_MQTT_PASSWORD: `${marker}-bootstrap-mqtt`,
      });
      rest = new RestClient(server, { client_id: 'acme-client', client_secret: `${marker}-bootstrap-client-secret-0123` });
      for (const id of ['a', 'b', 'c', 'd', 'e']) assert.equal((await rest.post('/groups', { group_id: id })).status, 200);
    });
    after(() => server?.stop());

    test('no secret in any entry or in the export: passwords, client secrets, MQTT passwords, tokens', async () => {
      const manager = new GraphqlClient(server);
      await manager.login({ password: `${marker}-bootstrap-password` });
      await manager.login({ password: `${marker}-wrong-password` });
      const secrets = [`${marker}-user-password`, `${marker}-mqtt-password`, `${marker}`];
      const made = await manager.request(
        `mutation { createUser(email: "s@acme.test", password: "${marker}-user-password", role: VIEWER) { id }
          createApiClient(name: "secret-test") { clientId clientSecret }
          createMqttCredential(kind: GATEWAY, username: "gw-secret") { username password } }`,
      );
      assert.equal(made.body.errors, undefined, JSON.stringify(made.body.errors));
      const generated = [
        made.body.data.createApiClient.clientSecret,
        made.body.data.createMqttCredential.password,
        manager.accessToken!,
        manager.refreshToken!,
        await rest.accessToken(),
      ];
      const run = await runThingdesk(
        [
          'mqtt-credential',
          'create',
          '--org',
          'acme',
          '--kind',
          'gateway',
          '--username',
          'gw-cli',
          '--password',
          `${marker}-mqtt-password`,
        ],
        { DATABASE_URL: url },
      );
      assert.equal(run.code, 0, run.stderr);
      const stored = JSON.stringify(await entriesOf(server));
      const exported = await fetch(server.url(`${server.config.restBasePath}/audit/export`), {
        headers: { authorization: `Bearer ${await rest.accessToken()}` },
      });
      assert.equal(exported.status, 200);
      assert.match(exported.headers.get('content-type') ?? '', /application\/x-ndjson/);
      const text = await exported.text();
      assert.ok(text.split('\n').filter(Boolean).length > 10, 'the export has the entries');
      assert.ok(stored.includes('gw-cli') && text.includes('user.create'), 'the changes themselves are there');
      for (const secret of [...secrets.slice(0, 2), ...generated]) {
        assert.ok(!stored.includes(secret), `a secret in the stored entries: ${secret.slice(0, 12)}`);
        assert.ok(!text.includes(secret), `a secret in the export: ${secret.slice(0, 12)}`);
      }
      assert.ok(!stored.includes(marker) && !text.includes(marker), 'no marked secret anywhere');

      // The verification script of docs/audit.md, as printed there, verifies the export.
      const doc = readFileSync(new URL('../../docs/audit.md', import.meta.url), 'utf8');
      const script = /### Verifying an export yourself[\s\S]*?```js\n([\s\S]*?)```/.exec(doc)![1]!;
      const dir = mkdtempSync(join(tmpdir(), 'audit-verify-'));
      const canonicalizePath = createRequire(import.meta.url).resolve('canonicalize');
      writeFileSync(join(dir, 'verify.mjs'), script.replace("from 'canonicalize'", `from ${JSON.stringify(canonicalizePath)}`));
      writeFileSync(join(dir, 'audit.ndjson'), text);
      const printed = execFileSync(process.execPath, [join(dir, 'verify.mjs'), join(dir, 'audit.ndjson')], { encoding: 'utf8' });
      assert.match(printed, new RegExp(`^${text.split('\n').filter(Boolean).length} entries verify`));
      writeFileSync(join(dir, 'audit.ndjson'), text.replace('"group.create"', '"group.delete"'));
      assert.throws(
        () => execFileSync(process.execPath, [join(dir, 'verify.mjs'), join(dir, 'audit.ndjson')], { stdio: 'pipe' }),
        /changed/,
      );
    });

    test('GET /audit: newest first, filters, cursor; another organization and Viewers read nothing', async () => {
      const page = await rest.get('/audit?target_type=group&limit=2');
      assert.equal(page.status, 200, page.text);
      assert.deepEqual(
        page.body.data.entries.map((e: { target: { id: string } }) => e.target.id),
        ['e', 'd'],
      );
      const next = await rest.get(`/audit?target_type=group&limit=2&cursor=${page.body.data.next_cursor}`);
      assert.deepEqual(
        next.body.data.entries.map((e: { target: { id: string } }) => e.target.id),
        ['c', 'b'],
      );
      const byTarget = await rest.get('/audit?target_type=group&target_id=c&actor=acme-client&action=group.create');
      assert.equal(byTarget.body.data.entries.length, 1);
      const future = await rest.get(`/audit?from=${Math.floor(Date.now() / 1000) + 3600}`);
      assert.deepEqual(future.body.data.entries, []);
      assert.equal((await rest.get('/audit?limit=0')).status, 400);
      assert.equal((await rest.get('/audit?from=yesterday')).status, 400);

      const created = await runThingdesk(['org', 'create', '--name', 'Other', '--id', 'other'], { DATABASE_URL: url });
      assert.equal(created.code, 0, created.stderr);
      const client = await runThingdesk(['client', 'create', '--org', 'other', '--client-id', 'other-client', '--json'], {
        DATABASE_URL: url,
      });
      const other = new RestClient(server, { client_id: 'other-client', client_secret: JSON.parse(client.stdout).clientSecret });
      const theirs = await other.get('/audit?limit=1000');
      assert.ok(theirs.body.data.entries.every((e: { organization_id: string }) => e.organization_id === 'other'));
      assert.ok(!JSON.stringify(theirs.body).includes('acme'));

      const viewer = await signInAs(server, 'Viewer');
      const refused = await viewer.client.request('{ auditLog { entries { id } } }');
      assert.equal(refused.body.data, undefined);
      const manager = await signInAs(server, 'Manager');
      const read = await manager.client.request(
        '{ auditLog(targetType: "group", limit: 1) { entries { action target { id } actor { type } } nextCursor } }',
      );
      assert.deepEqual(read.body.data.auditLog.entries, [{ action: 'group.create', target: { id: 'e' }, actor: { type: 'api_client' } }]);
    });

    test('tampering is detected and named: changed, inserted, removed, the last entry removed', async () => {
      await server.stop();
      const database = await openDatabase(url, { readerThreads: 0 });
      const verify = async () => {
        const run = await runThingdesk(['audit', 'verify', '--org', 'acme', '--json'], { DATABASE_URL: url });
        return { code: run.code, result: JSON.parse(run.stdout.trim().split('\n')[0]!), stderr: run.stderr };
      };
      try {
        const db = database.db;
        const ok = await verify();
        assert.equal(ok.code, 0, ok.stderr);
        assert.equal(ok.result.ok, true);
        const last = Number(
          (await sql<{ n: number }>`select max(id) as n from audit_entries where organization_id = 'acme'`.execute(db)).rows[0]!.n,
        );

        const original = (
          await sql<{ t: string }>`select target_id as t from audit_entries where organization_id = 'acme' and id = 3`.execute(db)
        ).rows[0]!.t;
        await sql`update audit_entries set target_id = 'z' where organization_id = 'acme' and id = 3`.execute(db);
        let run = await verify();
        assert.deepEqual([run.code, run.result.firstInvalid], [1, '3 changed']);
        assert.match(run.stderr, /entry 3 changed/);
        await sql`update audit_entries set target_id = ${original} where organization_id = 'acme' and id = 3`.execute(db);
        assert.equal((await verify()).code, 0, 'restored');

        const copy = sql`select organization_id, id, at, actor_type, actor_id, actor_label, via, request_id, address, action, target_type, target_id, changes, outcome, hash from audit_entries`;
        await sql`create table saved_entries as ${copy} where organization_id = 'acme'`.execute(db);
        await sql`insert into audit_entries select organization_id, id + 1000, at, actor_type, actor_id, actor_label, via, request_id, address, action, target_type, target_id, changes, outcome, hash from saved_entries where id = ${last}`.execute(
          db,
        );
        run = await verify();
        assert.deepEqual([run.code, run.result.firstInvalid], [1, `${last + 1000} inserted`]);
        await sql`delete from audit_entries where organization_id = 'acme' and id = ${last + 1000}`.execute(db);

        await sql`delete from audit_entries where organization_id = 'acme' and id = ${last}`.execute(db);
        run = await verify();
        assert.deepEqual([run.code, run.result.firstInvalid], [1, `${last} removed`], 'the last entry removed shows against the head');
        await sql`insert into audit_entries select * from saved_entries where id = ${last}`.execute(db);
        assert.equal((await verify()).code, 0, 'restored');

        await sql`delete from audit_entries where organization_id = 'acme' and id = 4`.execute(db);
        run = await verify();
        assert.deepEqual([run.code, run.result.firstInvalid], [1, '5 removed']);
        const all = await runThingdesk(['audit', 'verify'], { DATABASE_URL: url });
        assert.equal(all.code, 1, 'without --org: every organization, failing on acme');
        assert.match(all.stdout, /other/);
      } finally {
        await database.close();
      }
    });
  });
}
