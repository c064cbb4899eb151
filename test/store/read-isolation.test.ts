/**
 * The hot reads (a thing by TUID, a page of messages) never see another request's uncommitted writes. On SQLite
 * they usually run as direct prepared statements on the main connection (SqliteDirectReads); while a transaction
 * is open there they must wait for it through the query builder instead.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/store/database.js';
import type { Store } from '../../src/store/store.js';
import { cleanupStores, openMigratedStore, storeTargets } from '../helpers/databases.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`read isolation of the hot reads on ${target.name}`, { skip: target.skip }, () => {
    let database: Database;
    let store: Store;
    before(async () => {
      ({ database, store } = await openMigratedStore(await target.createUrl()));
      await store.organizations.create({ id: 'org', name: 'Org', createdAt: 1 });
    });
    after(() => database?.close());

    const insertThing = (db: Database['db'], tuid: string) =>
      sql`insert into things (tuid, organization_id, group_id, installation_status, created_at) values (${tuid}, 'org', null, 'new', 1)`.execute(
        db,
      );
    const insertMessage = (db: Database['db'], tuid: string) =>
      sql`insert into messages (tuid, tsm_ts, tsm_id, fingerprint, organization_id, received_at, body)
          values (${tuid}, 1, 1, 'f', 'org', 1, '{"tsmId":1,"deploymentGroupId":"unassigned"}')`.execute(db);

    test('a read started inside an open transaction waits for it and sees nothing it rolled back', async () => {
      const reads: Promise<unknown>[] = [];
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          await insertThing(trx, 'DIRTY-1');
          await insertMessage(trx, 'DIRTY-1');
          reads.push(store.things.get('DIRTY-1'), store.messages.listJson({ tuid: 'DIRTY-1', limit: 10 }));
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error('roll back');
        }),
        /roll back/,
      );
      const [thing, messages] = await Promise.all(reads);
      assert.equal(thing, undefined);
      assert.deepEqual(messages, []);
    });

    test('committed rows are read, by the direct path and after a transaction alike', async () => {
      await database.db.transaction().execute(async (trx) => {
        await insertThing(trx, 'CLEAN-1');
        await insertMessage(trx, 'CLEAN-1');
      });
      assert.equal((await store.things.get('CLEAN-1'))?.tuid, 'CLEAN-1');
      assert.deepEqual(await store.messages.listJson({ tuid: 'CLEAN-1', limit: 10 }), ['{"tsmId":1,"deploymentGroupId":"unassigned"}']);
      assert.deepEqual(await store.messages.listJson({ tuid: 'CLEAN-1', limit: 10, messageIds: [2] }), []);
      assert.deepEqual((await store.messages.listJson({ tuid: 'CLEAN-1', limit: 10, messageIds: [2, 1], from: 1, to: 1 })).length, 1);
    });
  });
}
