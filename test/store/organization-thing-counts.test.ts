/**
 * Migration 0034: each organization's number of things, kept by triggers on `things`. An existing store gets its
 * counts backfilled; ingest batches committing at once (on PostgreSQL, concurrent transactions claiming things of
 * the same organizations, some the same TUIDs) lose no count.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { systemClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { cleanupStores, openMigratedStore, storeTargets } from '../helpers/databases.js';
import { migrateBefore } from '../helpers/migrate-before.js';

after(cleanupStores);

/** Every organization's kept count beside the count of its things, for one comparison. */
async function keptAndReal(database: Database): Promise<{ kept: Record<string, number>; real: Record<string, number> }> {
  const kept = await database.db.selectFrom('organization_thing_counts').selectAll().execute();
  const real = await sql<{ organization_id: string; n: number }>`select o.id as organization_id,
      (select count(*) from things t where t.organization_id = o.id) as n from organizations o`.execute(database.db);
  return {
    kept: Object.fromEntries(kept.map((row) => [row.organization_id, Number(row.thing_count)])),
    real: Object.fromEntries(real.rows.map((row) => [row.organization_id, Number(row.n)])),
  };
}

for (const target of storeTargets) {
  describe(`organization thing counts on ${target.name}`, { skip: target.skip }, () => {
    test('0034 backfills the count of every organization, none too; later inserts and deletes keep it', async () => {
      const database = await openDatabase(await target.createUrl());
      try {
        await migrateBefore(database, '0034');
        for (const id of ['acme', 'rival', 'empty'])
          await database.db.insertInto('organizations').values({ id, name: id, name_key: id, created_at: 1 }).execute();
        const thing = (tuid: string, organization_id: string) => ({
          tuid,
          organization_id,
          group_id: null,
          installation_status: 'new',
          created_at: 1,
        });
        await database.db
          .insertInto('things')
          .values([thing('A-1', 'acme'), thing('A-2', 'acme'), thing('A-3', 'acme'), thing('R-1', 'rival')])
          .execute();
        assert.ok((await migrateToLatest(database)).applied.includes('0034-organization-thing-counts'));
        assert.deepEqual((await keptAndReal(database)).kept, { acme: 3, rival: 1, empty: 0 });

        const store = createStore(database);
        assert.equal(await store.things.count('acme'), 3);
        await database.db
          .insertInto('things')
          .values([thing('E-1', 'empty'), thing('A-4', 'acme')])
          .execute();
        await database.db.deleteFrom('things').where('tuid', 'in', ['A-1', 'A-2', 'R-1']).execute();
        const { kept, real } = await keptAndReal(database);
        assert.deepEqual(kept, { acme: 2, rival: 0, empty: 1 });
        assert.deepEqual(kept, real);
        await database.db.deleteFrom('organizations').where('id', '=', 'acme').execute();
        assert.deepEqual(await keptAndReal(database), { kept: { rival: 0, empty: 1 }, real: { rival: 0, empty: 1 } });
        assert.equal(await store.things.count('acme'), 0, 'a deleted organization has none');
      } finally {
        await database.close();
      }
    });

    test('ingest batches committing at once, claiming things of two organizations (some the same TUIDs), lose no count', async () => {
      const { database, store } = await openMigratedStore(await target.createUrl());
      const writers = [ingestBatchWriter(database), ingestBatchWriter(database)];
      try {
        for (const id of ['acme', 'rival']) await createOrganization({ store, clock: systemClock }, { name: id, id });
        const batch = (organizationId: string, tuids: string[]) => {
          const from = { organizationId, gatewayTuid: `GW-${organizationId}`, source: 'test', client: null, receivedAt: Date.now() };
          const body = tuids.map((tsmTuid, i) => ({ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000 + i, tsmTuid, batl: 50 }));
          return parseUplink(JSON.stringify(body), from).records;
        };
        const commits: Promise<unknown>[] = [];
        for (let round = 0; round < 12; round++) {
          const organizationId = round % 3 === 0 ? 'rival' : 'acme';
          // Overlapping ranges: consecutive batches of acme share 20 TUIDs, committed at once, so those claims race.
          const tuids = Array.from({ length: 40 }, (_, i) => `${organizationId}-${round * 20 + i}`);
          commits.push(writers[round % 2]!(batch(organizationId, tuids), []));
        }
        await Promise.all(commits);
        const { kept, real } = await keptAndReal(database);
        assert.ok(real.acme! > 0 && real.rival! > 0, JSON.stringify(real));
        assert.deepEqual(kept, real);
        assert.equal(await store.things.count('acme'), real.acme);
      } finally {
        for (const writer of writers) await writer.close();
        await database.close();
      }
    });
  });
}
