/**
 * The checkpointer thread (src/store/sqlite-checkpointer.ts) keeps the write-ahead log short, so the committing
 * connections never reach `wal_autocheckpoint` (10,000 pages, about 40 MB) and never checkpoint themselves. The log
 * file's size is its high-water mark (a restarted log is written again from its start, not truncated): without the
 * checkpointer it reaches the writers' threshold under this write load, with it it stays well below.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { SqliteBinding } from '../../src/store/sqlite-binding.js';
import { systemClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import type { UplinkRecord } from '../../src/domain/messages/message-types.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { cleanupStores, createSqliteUrl, openMigratedStore } from '../helpers/databases.js';

after(cleanupStores);

const writersThresholdBytes = 10_000 * 4096;
const note = 'x'.repeat(1000);

/** 500 messages of about 1 KB from 500 things, batch `n`'s own (so none is a duplicate). */
function batch(n: number): UplinkRecord[] {
  const from = { organizationId: 'acme', gatewayTuid: 'GW-C', source: 'thingdesk/acme/up/GW-C', client: null, receivedAt: Date.now() };
  const messages = Array.from({ length: 500 }, (_, i) => ({
    tsmId: 12100,
    tsmTs: 1_790_000_000 + n,
    tsmTuid: `T-${i}`,
    temp: n % 40,
    note,
  }));
  return parseUplink(JSON.stringify(messages), from).records;
}

async function writer() {
  const url = createSqliteUrl();
  const { database, store } = await openMigratedStore(url);
  await createOrganization({ store, clock: systemClock }, { name: 'acme', id: 'acme' });
  if (database.driver.dialect !== 'sqlite') throw new Error('expected SQLite');
  const path = database.driver.connection.name;
  const commit = ingestBatchWriter(database);
  const walBytes = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  const close = async () => {
    await commit.close();
    await database.close();
  };
  return { path, commit, walBytes, close };
}

describe('SQLite checkpointer thread', () => {
  test('under steady writes the log never reaches the threshold at which a writer would checkpoint itself', async () => {
    const { commit, walBytes, close } = await writer();
    try {
      let highest = 0;
      // 1.5 to 4.5 MB of log per batch, paced as a fleet's batches are, not at the store's ceiling.
      for (let n = 0; n < 60; n++) {
        const result = await commit(batch(n), []);
        assert.equal(result.stored.length, 500);
        highest = Math.max(highest, walBytes());
        // A fleet's pace, with gaps the checkpointer can use even on a slow, loaded host (30 ms reached the threshold
        // there 1 run in 2); without the checkpointer the log reaches it whatever the pace, as only the writers'
        // own checkpoint at that threshold lets it start over.
        await sleep(60);
      }
      // Measured: 23.6 MB with the checkpointer (restarts from 8 MB on, a batch's worth more when one must wait);
      // 46.1 MB without it, where the writer checkpoints past 40 MB.
      assert.ok(highest < writersThresholdBytes, `the log reached ${(highest / 2 ** 20).toFixed(1)} MB`);
    } finally {
      await close();
    }
  });

  test('a reader holding an old snapshot: the writes go on, the write lock is not taken in vain, and once the reader ends the log is restarted again', async () => {
    const { path, commit, walBytes, close } = await writer();
    const reader = new SqliteBinding(path, { readonly: true });
    try {
      reader.prepare('begin').run();
      reader.prepare('select count(*) from messages').get();
      for (let n = 0; n < 20; n++) assert.equal((await commit(batch(n), []))!.stored.length, 500);
      // Nothing could be restarted behind the reader's snapshot: the log holds all 20 batches.
      const held = walBytes();
      assert.ok(held > 20 * 500 * 1000, `the log held ${held} bytes`);
      // Nobody writes now. A RESTART could not finish behind the reader, so the checkpointer must not try one: it
      // would hold the write lock for its busy timeout (100 ms) every tick, and ingest would wait behind it.
      const probe = new SqliteBinding(path);
      probe.pragma('busy_timeout = 0');
      let lockTaken = 0;
      try {
        for (const until = Date.now() + 600; Date.now() < until; await sleep(5)) {
          try {
            probe.prepare('begin immediate').run();
            probe.prepare('rollback').run();
          } catch (error) {
            if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
            lockTaken += 1;
          }
        }
      } finally {
        probe.close();
      }
      assert.equal(lockTaken, 0, 'the write lock was held while the writer was idle');
      reader.prepare('commit').run();
      await sleep(200);
      for (let n = 20; n < 60; n++) {
        await commit(batch(n), []);
        await sleep(30);
      }
      // 40 batches of several MB went in after the reader left: written on, the log would have grown by all of them.
      // Restarted, the file grows only by what the writer adds while the first checkpoint copies the backlog: under a
      // megabyte on a quick host, 21 MB measured on a slow, loaded one (copying the 94 MB backlog took 0.5 s).
      const grown = walBytes() - held;
      assert.ok(grown < writersThresholdBytes, `the log was restarted after the reader left, not written on (grew ${grown} bytes)`);
      assert.equal(reader.prepare<[], { n: number }>('select count(*) as n from messages').get()!.n, 60 * 500);
    } finally {
      reader.close();
      await close();
    }
  });
});
