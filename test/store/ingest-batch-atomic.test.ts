/**
 * The PostgreSQL batch writer queues COMMIT right behind its last writes (one round trip). PostgreSQL answers a
 * COMMIT after a failed statement by rolling back, without an error: the batch must still reject, and nothing of
 * it be kept, else an uplink would be acknowledged and lost. The failure is real: a trigger refuses the dead letter
 * written in the batch's last statement.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { systemClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { deadLetter, parseUplink } from '../../src/ingest/parse-uplink.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { cleanupStores, createPostgresUrl, openMigratedStore, postgresSkipReason } from '../helpers/databases.js';

after(cleanupStores);

describe('PostgreSQL batch writer: all or nothing', { skip: postgresSkipReason }, () => {
  test('a batch whose last statement fails rejects and keeps nothing: no message, no claimed thing, no dead letter', async () => {
    const { database, store } = await openMigratedStore(await createPostgresUrl());
    await createOrganization({ store, clock: systemClock }, { name: 'acme', id: 'acme' });
    const commit = ingestBatchWriter(database);
    if (database.driver.dialect !== 'postgres') throw new Error('expected PostgreSQL');
    const { pool } = database.driver;
    try {
      await pool.query(
        `create function refuse_dead_letter() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`,
      );
      await pool.query('create trigger refuse before insert on dead_letters for each row execute function refuse_dead_letter()');
      const from = { organizationId: 'acme', gatewayTuid: 'GW', source: 'test', client: null, receivedAt: Date.now() };
      const { records } = parseUplink(JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_035_200, tsmTuid: 'T-1', batl: 60 }]), from);
      await assert.rejects(commit(records, [deadLetter(from, 'test', 'not json')]), /refused by the test/);
      const count = async (table: string) => Number((await pool.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]!.n);
      assert.deepEqual([await count('messages'), await count('things'), await count('dead_letters')], [0, 0, 0]);

      await pool.query('drop trigger refuse on dead_letters');
      const result = await commit(records, [deadLetter(from, 'test', 'not json')]);
      assert.equal(result.stored.length, 1, 'the same batch commits once the store takes it');
      assert.deepEqual([await count('messages'), await count('things'), await count('dead_letters')], [1, 1, 1]);
    } finally {
      await commit.close();
      await database.close();
    }
  });
});
