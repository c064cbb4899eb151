import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { systemClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import type { Database } from '../../src/store/database.js';
import { ingestBatchWriter, type ClosableCommitIngestBatch } from '../../src/store/batch-writer/batch-writer.js';
import type { Store } from '../../src/store/store.js';
import { cleanupStores, createSqliteUrl, openMigratedStore } from '../helpers/databases.js';

after(cleanupStores);

const t0 = 1_790_000_000;

/** Records as the ingest pipeline hands them to the writer. */
function records(organizationId: string, messages: readonly Record<string, unknown>[]) {
  return parseUplink(JSON.stringify(messages), {
    organizationId,
    gatewayTuid: 'GW-W',
    source: `thingdesk/${organizationId}/up/GW-W`,
    client: 'test',
    receivedAt: Date.now(),
  }).records;
}

const connectionOf = (database: Database) => {
  if (database.driver.dialect !== 'sqlite') throw new Error('SQLite only');
  return database.driver.connection;
};

describe('SQLite uplink writer thread', () => {
  let database: Database;
  let store: Store;
  let commit: ClosableCommitIngestBatch;

  before(async () => {
    ({ database, store } = await openMigratedStore(createSqliteUrl()));
    for (const name of ['Acme', 'Other']) await createOrganization({ store, clock: systemClock }, { name });
    commit = ingestBatchWriter(database);
  });
  after(async () => {
    await commit?.close();
    await database?.close();
  });

  test('a committed batch is readable through the main connection as soon as it resolves', async () => {
    const result = await commit(
      records('acme', [
        { tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'W-1', batl: 77 },
        { tsmId: 12100, tsmTs: t0 + 1, tsmTuid: 'W-1', temp: 20 },
      ]),
      [],
    );
    assert.equal(result.stored.length, 2);
    assert.deepEqual(result.claimed, ['W-1']);
    // The stored messages keep the parsed message for the listeners of messagesStored.
    assert.equal(result.stored[0]!.message.batl, 77);
    assert.equal(result.stored[0]!.groupId, null);
    assert.equal((await store.messages.listJson({ tuid: 'W-1', limit: 10 })).length, 2);
    const thing = await store.things.get('W-1');
    assert.equal(thing?.organizationId, 'acme');
    assert.equal(thing?.summary.batteryLevel, 77);
  });

  test('redeliveries are duplicates and another organization’s thing is dead-lettered, in one batch', async () => {
    const again = records('acme', [{ tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'W-1', batl: 77 }]);
    const foreign = records('other', [{ tsmId: 1110, tsmEv: 10, tsmTs: t0 + 2, tsmTuid: 'W-1', batl: 10 }]);
    const fresh = records('acme', [{ tsmId: 1110, tsmEv: 10, tsmTs: t0 + 3, tsmTuid: 'W-1', batl: 70 }]);
    const result = await commit([...again, ...foreign, ...fresh], []);
    assert.equal(result.duplicates, 1);
    assert.deepEqual(
      result.stored.map((m) => m.tsmTs),
      [t0 + 3],
    );
    assert.equal(result.deadLetters.length, 1);
    assert.match(result.deadLetters[0]!.reason, /belongs to another organization/);
    assert.equal((await store.deadLetters.list({ organizationId: 'other', limit: 10 })).length, 1);
    assert.equal((await store.things.get('W-1'))?.summary.batteryLevel, 70);
  });

  test('a batch that fails in the thread is rejected and leaves nothing behind; the next one is written', async () => {
    const main = connectionOf(database);
    main.exec("create trigger refuse_w2 before insert on messages when new.tuid = 'W-2' begin select raise(abort, 'refused by test'); end");
    try {
      await assert.rejects(
        commit(records('acme', [{ tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'W-2', batl: 50 }]), []),
        /refused by test/,
      );
    } finally {
      main.exec('drop trigger refuse_w2');
    }
    // The claim of W-2 rolled back with the batch.
    assert.equal(await store.things.get('W-2'), undefined);
    const result = await commit(records('acme', [{ tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'W-2', batl: 50 }]), []);
    assert.equal(result.stored.length, 1);
  });

  test('the main connection’s own transactions wait for the writer instead of failing', async () => {
    const pending = Array.from({ length: 20 }, (_, i) =>
      commit(
        records(
          'acme',
          Array.from({ length: 200 }, (_, j) => ({ tsmId: 12100, tsmTs: t0 + 100 + j, tsmTuid: `WB-${i}`, temp: j })),
        ),
        [],
      ),
    );
    // A read-then-write transaction on the main connection while the writer commits.
    for (let i = 0; i < 20; i++) {
      await database.db.transaction().execute(async (trx) => {
        await trx.selectFrom('things').select('tuid').limit(1).execute();
        await trx.updateTable('things').set({ group_id: null }).where('tuid', '=', 'W-1').execute();
      });
    }
    const results = await Promise.all(pending);
    assert.equal(
      results.reduce((sum, r) => sum + r.stored.length, 0),
      4000,
    );
  });

  test('close lets the batches already sent commit, then refuses new ones', async () => {
    const writer = ingestBatchWriter(database);
    const pending = [1, 2, 3].map((n) => writer(records('acme', [{ tsmId: 12100, tsmTs: t0 + n, tsmTuid: 'W-3', temp: n }]), []));
    await writer.close();
    const results = await Promise.all(pending);
    assert.deepEqual(
      results.map((r) => r.stored.length),
      [1, 1, 1],
    );
    assert.equal((await store.messages.listJson({ tuid: 'W-3', limit: 10 })).length, 3);
    await assert.rejects(writer(records('acme', [{ tsmId: 12100, tsmTs: t0 + 9, tsmTuid: 'W-3', temp: 9 }]), []), /closed/);
  });
});
