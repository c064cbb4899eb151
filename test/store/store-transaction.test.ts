/**
 * Store.transaction on both stores: the work commits or rolls back as one, a module's own transaction inside it
 * joins, and on PostgreSQL the audit entry that records a change travels with the COMMIT (one round trip, the head
 * locked only while committing) yet still commits or rolls back with the change.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { NewAuditEntry } from '../../src/domain/audit/audit-types.js';
import type { Database } from '../../src/store/database.js';
import type { Store } from '../../src/store/store.js';
import { cleanupStores, openMigratedStore, storeTargets } from '../helpers/databases.js';

after(cleanupStores);

const entry = (organizationId: string, targetId: string): NewAuditEntry => ({
  at: 1,
  organizationId,
  actor: { type: 'api_client', id: 'c', label: "o'brien \\ test" },
  via: 'rest',
  requestId: null,
  address: '127.0.0.1',
  action: 'group.create',
  target: { type: 'group', id: targetId },
  changes: { description: { from: null, to: 'it\'s "quoted" \\ and ; commit; --' } },
  outcome: 'success',
});

for (const target of storeTargets) {
  describe(`Store.transaction on ${target.name}`, { skip: target.skip }, () => {
    let database: Database;
    let store: Store;
    before(async () => {
      ({ database, store } = await openMigratedStore(await target.createUrl()));
      await store.organizations.create({ id: 'org', name: 'Org', createdAt: 1 });
    });
    after(() => database?.close());

    const groupIds = async () =>
      (
        await sql<{ group_id: string }>`select group_id from groups where organization_id = 'org' order by group_id`.execute(database.db)
      ).rows.map((r) => r.group_id);
    const logged = async (organizationId: string) =>
      (await store.audit.list({ organizationId, limit: 100 })).map((e) => e.target.id).sort();

    test('a change and its entry commit together; a module transaction inside joins; values with quotes arrive as sent', async () => {
      await store.transaction(async () => {
        await store.groups.create({ organizationId: 'org', groupId: 'g-1', description: null, createdAt: 1 });
        await store.audit.append(entry('org', 'g-1'));
        // A module's own transaction (the installation store's) joins this one.
        await store.transaction(() => store.audit.append(entry('org', 'g-1b')));
      });
      assert.deepEqual(await groupIds(), ['g-1']);
      assert.deepEqual(await logged('org'), ['g-1', 'g-1b']);
      const [newest] = await store.audit.list({ organizationId: 'org', limit: 1 });
      assert.equal(newest!.actor.label, "o'brien \\ test");
      assert.deepEqual(newest!.changes, entry('org', 'x').changes);
      // The organization's first entries made its head; the chain numbers them 1, 2.
      assert.equal((await store.audit.head('org'))!.lastId, 2);
    });

    test('work that throws after appending leaves neither the change nor the entry', async () => {
      await assert.rejects(
        store.transaction(async () => {
          await store.groups.create({ organizationId: 'org', groupId: 'g-2', description: null, createdAt: 1 });
          await store.audit.append(entry('org', 'g-2'));
          throw new Error('refused after the append');
        }),
        /refused after the append/,
      );
      assert.deepEqual(await groupIds(), ['g-1']);
      assert.deepEqual(await logged('org'), ['g-1', 'g-1b']);
    });

    test('an entry that cannot be written at commit rolls the change back, and the connection is usable after', async () => {
      // PostgreSQL refuses an action longer than its column at COMMIT, where the entry is written; SQLite has no
      // length limit, but a missing time breaks its NOT NULL at once.
      const unwritable = target.name === 'postgres' ? { action: 'x'.repeat(101) } : { at: Number.NaN };
      const failed = await store
        .transaction(async () => {
          await store.groups.create({ organizationId: 'org', groupId: 'g-3', description: null, createdAt: 1 });
          await store.audit.append({ ...entry('org', 'g-3'), ...unwritable });
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      assert.ok(failed instanceof Error, 'the transaction failed');
      assert.deepEqual(await groupIds(), ['g-1']);
      assert.deepEqual(await logged('org'), ['g-1', 'g-1b']);
      // The pool's connections are clean: the next transactions commit.
      for (let i = 0; i < 5; i++) {
        await store.transaction(async () => {
          await store.groups.create({ organizationId: 'org', groupId: `g-after-${i}`, description: null, createdAt: 1 });
          await store.audit.append(entry('org', `g-after-${i}`));
        });
      }
      assert.equal((await groupIds()).length, 6);
      assert.equal((await store.audit.head('org'))!.lastId, 7);
      const count = await sql<{ n: number }>`select count(*) as n from audit_entries where organization_id = 'org'`.execute(database.db);
      assert.equal(Number(count.rows[0]!.n), 7);
    });
  });
}
