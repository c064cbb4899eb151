/** `thingdesk things import|export` and `thingdesk mqtt-credential import` (SPEC section 12) on a SQLite store. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { cleanupStores, createSqliteUrl, openMigratedStore } from '../helpers/databases.js';
import { runThingdesk } from '../helpers/run-cli.js';

after(cleanupStores);

describe('provisioning commands', () => {
  test('things import plans with --dry-run, applies without; export round-trips; mqtt-credential import prints passwords', async () => {
    const url = createSqliteUrl();
    const { database, store } = await openMigratedStore(url);
    await createOrganization({ store, clock: { now: () => Date.now() } }, { name: 'Acme', id: 'acme' });
    await database.close();
    const dir = mkdtempSync(join(tmpdir(), 'thingdesk-provisioning-'));
    const file = join(dir, 'things.csv');
    writeFileSync(file, 'tuid,name,installation_status,label.site\nCLI-1,Pump,installed,north\nCLI-2,,,\n');
    const env = { DATABASE_URL: url };
    const planned = await runThingdesk(['things', 'import', file, '--org', 'acme', '--dry-run'], env);
    assert.equal(planned.code, 0, planned.stderr);
    assert.match(planned.stdout, /^row\s+tuid\s+action\s+detail$/m);
    assert.match(planned.stdout, /^2\s+CLI-1\s+create\s+name, labels, group_id, installation_status$/m);
    assert.match(planned.stdout, /Planned \(nothing changed\): 2 create, 0 update, 0 unchanged, 0 error/);
    const applied = await runThingdesk(['things', 'import', file, '--org', 'acme'], env);
    assert.match(applied.stdout, /Applied: 2 create/);
    const exported = await runThingdesk(['things', 'export', '--org', 'acme'], env);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /^CLI-1,Pump,unassigned,installed,north\r$/m);
    writeFileSync(join(dir, 'export.csv'), exported.stdout);
    const again = await runThingdesk(['things', 'import', join(dir, 'export.csv'), '--org', 'acme', '--dry-run'], env);
    assert.match(again.stdout, /0 create, 0 update, 2 unchanged, 0 error/);
    const bad = await runThingdesk(['things', 'import', file, '--org', 'nobody'], env);
    assert.notEqual(bad.code, 0);
    writeFileSync(join(dir, 'gateways.ndjson'), '{"username":"cli-gw-1","kind":"gateway"}\n');
    const credentials = await runThingdesk(['mqtt-credential', 'import', join(dir, 'gateways.ndjson'), '--org', 'acme'], env);
    assert.equal(credentials.code, 0, credentials.stderr);
    assert.match(credentials.stdout, /^1\s+cli-gw-1\s+gateway\s+create\s+\S{16,}$/m);
  });
});
