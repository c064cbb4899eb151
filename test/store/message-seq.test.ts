/**
 * Stored order per thing (issue 18): on PostgreSQL each stored message gets its thing's next number under the
 * thing's row lock, so batches committed by several connections at once (several instances) number a thing's
 * messages once each, without gaps, in commit order; duplicates take no number. SQLite (one process, commits in
 * order) numbers nothing.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { systemClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import type { StoredMessage } from '../../src/domain/messages/message-types.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { cleanupStores, createSqliteUrl, openMigratedStore, postgresSkipReason, createPostgresUrl } from '../helpers/databases.js';

after(cleanupStores);

const t0 = 1_790_035_200;
const uplink = (tuid: string, tsmTs: number) => ({ tsmId: 1110, tsmEv: 10, tsmTs, tsmTuid: tuid, batl: 60 });

async function storeWith(url: string, { first = true } = {}) {
  const { database, store } = await openMigratedStore(url);
  if (first) await createOrganization({ store, clock: systemClock }, { name: 'acme', id: 'acme' });
  const commit = ingestBatchWriter(database);
  return {
    commit: async (messages: Record<string, unknown>[]) => {
      const { records } = parseUplink(JSON.stringify(messages), {
        organizationId: 'acme',
        gatewayTuid: 'GW',
        source: 'test',
        client: null,
        receivedAt: Date.now(),
      });
      return (await commit(records, [])).stored;
    },
    close: async () => {
      await commit.close();
      await database.close();
    },
  };
}

const order = (stored: readonly StoredMessage[]) => stored.map((m) => [m.tuid, m.tsmTs - t0, m.seq]);

describe('stored order per thing on PostgreSQL', { skip: postgresSkipReason }, () => {
  test('numbered on from batch to batch, in the batch order; a duplicate takes no number; the previous commit time carried', async () => {
    const s = await storeWith(await createPostgresUrl());
    try {
      const before = Date.now();
      const first = await s.commit([uplink('T-1', t0), uplink('T-2', t0), uplink('T-1', t0 + 1)]);
      assert.deepEqual(order(first), [
        ['T-1', 0, 1],
        ['T-2', 0, 1],
        ['T-1', 1, 2],
      ]);
      assert.equal(first[0]!.previousAt, null, 'a thing never stored before: no predecessor');
      const committed = first[2]!.previousAt!;
      assert.ok(committed >= before, 'the second of the batch follows the first, committed with it');

      const second = await s.commit([uplink('T-1', t0 + 1), uplink('T-1', t0 - 5), uplink('T-1', t0 + 2)]);
      assert.deepEqual(
        order(second),
        [
          ['T-1', -5, 3],
          ['T-1', 2, 4],
        ],
        'the redelivered message is a duplicate and takes no number; the order is of storing, not of tsmTs',
      );
      assert.equal(second[0]!.previousAt, committed, "carries when the thing's previous message was committed");
    } finally {
      await s.close();
    }
  });

  test('batches of one thing committed at once by several connections number it once each, without gaps', async () => {
    const url = await createPostgresUrl();
    const writers = [await storeWith(url), await storeWith(url, { first: false }), await storeWith(url, { first: false })];
    try {
      const batches = 30;
      const stored = await Promise.all(
        Array.from({ length: batches }, (_, i) =>
          writers[i % writers.length]!.commit([uplink('T-1', t0 + 2 * i), uplink('T-1', t0 + 2 * i + 1)]),
        ),
      );
      const seqs = stored.flat().map((m) => m.seq!);
      assert.deepEqual(
        [...seqs].sort((a, b) => a - b),
        Array.from({ length: 2 * batches }, (_, i) => i + 1),
      );
      for (const batch of stored) assert.equal(batch[1]!.seq, batch[0]!.seq! + 1, 'a batch numbers its messages consecutively');
    } finally {
      for (const writer of writers) await writer.close();
    }
  });
});

test('SQLite numbers nothing: its one process emits its commits in order', async () => {
  const s = await storeWith(createSqliteUrl());
  try {
    const stored = await s.commit([uplink('T-1', t0), uplink('T-1', t0 + 1)]);
    assert.deepEqual(
      stored.map((m) => m.seq),
      [undefined, undefined],
    );
  } finally {
    await s.close();
  }
});
