/**
 * SPEC 14: expiry by AUDIT_RETENTION_DAYS keeps the chain verifiable; two instances on one PostgreSQL store append to
 * one chain; a chain's lock holds up only its own organization.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { ManualClock } from '../../src/domain/clock.js';
import { createApiClient, createOrganization } from '../../src/domain/identity/identity-service.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../helpers/databases.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp } from '../helpers/test-app.js';
import { closeMqttClients } from '../helpers/uplinks.js';
import { entriesOf } from './audit-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const dayMs = 86_400_000;

test('expiry removes entries older than AUDIT_RETENTION_DAYS, records the sweep, and the rest still verifies', async () => {
  const clock = new ManualClock(Date.now());
  const server = await startTestApp({ AUDIT_RETENTION_DAYS: '30' }, { clock });
  try {
    const rest = new RestClient(server);
    for (const id of ['old-1', 'old-2']) assert.equal((await rest.post('/groups', { group_id: id })).status, 200);
    const old = await entriesOf(server);
    clock.advance(31 * dayMs);
    const fresh = new RestClient(server); // the old token has expired meanwhile
    assert.equal((await fresh.post('/groups', { group_id: 'new-1' })).status, 200);
    const report = await server.app.retention.sweep();
    assert.equal(report?.auditEntries, old.length);
    const left = await entriesOf(server);
    assert.ok(
      left.every((entry) => entry.id > old[old.length - 1]!.id),
      'the old entries are gone',
    );
    assert.ok(
      left.some((entry) => entry.target.id === 'new-1'),
      'the recent ones stay',
    );
    const sweep = left.find((entry) => entry.action === 'retention.sweep')!;
    assert.deepEqual([sweep.actor.type, sweep.via, sweep.changes?.['auditEntriesExpired']?.to], ['system', 'system', old.length]);
    const verified = await fresh.get('/audit/verify');
    assert.deepEqual(verified.body.data, { ok: true, checked: left.length, first_invalid: null });
  } finally {
    await server.stop();
  }
});

test('two instances on one PostgreSQL store appending at once leave one chain that verifies', { skip: postgresSkipReason }, async () => {
  const url = await createPostgresUrl();
  const first = await startTestApp({ DATABASE_URL: url });
  const second = await startTestApp({ DATABASE_URL: url, BOOTSTRAP_ORG: '' });
  try {
    const clients = [new RestClient(first), new RestClient(second)];
    await Promise.all(clients.map((client) => client.accessToken()));
    const calls = Array.from({ length: 40 }, (_, i) => clients[i % 2]!.post('/groups', { group_id: `g-${i}` }));
    for (const response of await Promise.all(calls)) assert.equal(response.status, 200, response.text);
    const entries = await entriesOf(first);
    assert.equal(entries.filter((entry) => entry.action === 'group.create').length, 40);
    assert.deepEqual(
      entries.map((entry) => entry.id),
      entries.map((_, i) => i + 1),
      'one line, numbered without gaps',
    );
    const verified = await clients[1]!.get('/audit/verify');
    assert.deepEqual(verified.body.data, { ok: true, checked: entries.length, first_invalid: null });
  } finally {
    await second.stop();
    await first.stop();
  }
});

test("on PostgreSQL a locked chain holds up its own organization's changes only", { skip: postgresSkipReason }, async () => {
  const url = await createPostgresUrl();
  const server = await startTestApp({ DATABASE_URL: url });
  // Another session holding acme's head, as an instance would in the middle of a change of acme's.
  const holder = new pg.Client({ connectionString: url });
  try {
    const deps = { store: server.app.store, clock: server.app.clock };
    await createOrganization(deps, { name: 'Other', id: 'other' });
    const { clientSecret } = await createApiClient(deps, { organizationId: 'other', name: 'Other', clientId: 'other-client' });
    const acme = new RestClient(server);
    const other = new RestClient(server, { client_id: 'other-client', client_secret: clientSecret });
    await Promise.all([acme.accessToken(), other.accessToken()]);
    await holder.connect();
    await holder.query('begin');
    await holder.query("select * from audit_heads where organization_id = 'acme' for update");
    let acmeDone = false;
    const acmeChange = acme.post('/groups', { group_id: 'waits' }).then((response) => ((acmeDone = true), response));
    // The other organization's changes go through while acme's head is held; acme's waits for it.
    for (const id of ['o-1', 'o-2']) assert.equal((await other.post('/groups', { group_id: id })).status, 200);
    assert.equal(acmeDone, false, "acme's change waits for its chain's head");
    await holder.query('commit');
    assert.equal((await acmeChange).status, 200);
    for (const [client, organizationId] of [
      [acme, 'acme'],
      [other, 'other'],
    ] as const) {
      const verified = await client.get('/audit/verify');
      assert.deepEqual(verified.body.data, { ok: true, checked: (await entriesOf(server, organizationId)).length, first_invalid: null });
    }
  } finally {
    await holder.end();
    await server.stop();
  }
});
