import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { IngestBatchResult, UplinkRecord } from '../../src/domain/messages/message-types.js';
import { UplinkBatcher } from '../../src/ingest/uplink-batcher.js';

const record = (n: number) => ({ tuid: `B-${n}` }) as unknown as UplinkRecord;
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A store whose commits finish when the test says so. */
function manualStore() {
  const commits: { size: number; finish(): void }[] = [];
  const commit = (records: readonly UplinkRecord[]) =>
    new Promise<IngestBatchResult>((resolve) => commits.push({ size: records.length, finish: () => resolve({ stored: [], duplicates: 0, deadLetters: [], claimed: [] }) }));
  return { commits, commit };
}

describe('uplink batcher backpressure', () => {
  test('room() waits while maxQueued records are queued, and opens when a transaction takes them', async () => {
    const store = manualStore();
    const batcher = new UplinkBatcher(store.commit, { maxBatch: 2, maxConcurrent: 1, maxQueued: 2 }, () => undefined);
    const first = batcher.submit([record(1), record(2)], []);
    await tick();
    assert.deepEqual(
      store.commits.map((c) => c.size),
      [2],
    );
    // The writer is busy: two more records fill the queue.
    await batcher.room();
    const second = batcher.submit([record(3), record(4)], []);
    let admitted = false;
    const waiting = batcher.room().then(() => (admitted = true));
    await tick();
    assert.equal(admitted, false, 'a full queue makes the next payload wait');
    store.commits[0]!.finish();
    await first;
    await tick();
    // The second payload went into the next transaction, so the waiting one is let in.
    await waiting;
    assert.equal(admitted, true);
    store.commits[1]!.finish();
    await second;
    await batcher.drain();
  });

  test('without maxQueued, room() never waits', async () => {
    const store = manualStore();
    const batcher = new UplinkBatcher(store.commit, { maxBatch: 1, maxConcurrent: 1 }, () => undefined);
    const pending = Array.from({ length: 5 }, (_, n) => batcher.submit([record(n)], []));
    await batcher.room();
    for (let i = 0; i < 5; i++) {
      await tick();
      store.commits[i]!.finish();
      await pending[i];
    }
  });
});
