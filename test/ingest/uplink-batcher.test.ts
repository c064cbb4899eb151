import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DeadLetterRecord, IngestBatchResult, UplinkRecord } from '../../src/domain/messages/message-types.js';
import { UplinkBatcher } from '../../src/ingest/uplink-batcher.js';

const record = (n: number) => ({ tuid: `B-${n}`, body: '{}' }) as unknown as UplinkRecord;
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A store whose commits finish when the test says so. */
function manualStore() {
  const commits: { size: number; finish(): void }[] = [];
  const commit = (records: readonly UplinkRecord[]) =>
    new Promise<IngestBatchResult>((resolve) =>
      commits.push({ size: records.length, finish: () => resolve({ stored: [], duplicates: 0, deadLetters: [], claimed: [] }) }),
    );
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
      while (!store.commits[i]) await tick();
      store.commits[i]!.finish();
      await pending[i];
    }
  });
});

describe('uplink batcher: a payload the store refuses (issue 12 item 6)', () => {
  const poison = { tuid: 'POISON', body: '{}' } as unknown as UplinkRecord;
  const committed = { stored: [], duplicates: 0, deadLetters: [], claimed: [] };
  /** A store that refuses any transaction holding the poison record, as a writer that runs out of memory would. */
  function pickyStore(failure: () => Error) {
    const written: { tuids: string[]; deadLetters: string[] }[] = [];
    const commit = async (records: readonly UplinkRecord[], deadLetters: readonly DeadLetterRecord[]) => {
      if (records.includes(poison)) throw failure();
      written.push({ tuids: records.map((r) => r.tuid), deadLetters: deadLetters.map((d) => d.reason) });
      return committed;
    };
    return { written, commit };
  }
  const poisoned = (error: unknown) => ({ reason: `refused: ${(error as Error).message}`, payload: '' }) as DeadLetterRecord;

  test('the batch is retried payload by payload: the good ones commit, the poison one alone becomes a dead letter', async () => {
    const store = pickyStore(() => new Error('reached memory limit'));
    const batcher = new UplinkBatcher(store.commit, { maxBatch: 100, maxConcurrent: 1 }, () => undefined);
    const results = await Promise.allSettled([
      batcher.submit([record(1)], [], poisoned),
      batcher.submit([poison], [], poisoned),
      batcher.submit([record(2)], [], poisoned),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'fulfilled'],
    );
    assert.deepEqual(store.written, [
      { tuids: ['B-1'], deadLetters: [] },
      { tuids: [], deadLetters: ['refused: reached memory limit'] },
      { tuids: ['B-2'], deadLetters: [] },
    ]);
  });

  test('a store that cannot be reached rejects the whole batch: nothing is dead-lettered, everything is retried', async () => {
    const store = pickyStore(() => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const batcher = new UplinkBatcher(store.commit, { maxBatch: 100, maxConcurrent: 1 }, () => undefined);
    const results = await Promise.allSettled([batcher.submit([record(1)], [], poisoned), batcher.submit([poison], [], poisoned)]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    assert.deepEqual(store.written, []);
  });

  test('a single payload that fails is dead-lettered; without a dead letter to store it is rejected', async () => {
    const store = pickyStore(() => new Error('value too long'));
    const batcher = new UplinkBatcher(store.commit, { maxBatch: 100, maxConcurrent: 1 }, () => undefined);
    await batcher.submit([poison], [], poisoned);
    await assert.rejects(batcher.submit([poison], []), /value too long/);
    assert.deepEqual(store.written, [{ tuids: [], deadLetters: ['refused: value too long'] }]);
  });

  test('a batch is cut by bytes as well as by count', async () => {
    const big = (n: number) => ({ tuid: `BIG-${n}`, body: 'x'.repeat(600) }) as unknown as UplinkRecord;
    const sizes: number[] = [];
    const batcher = new UplinkBatcher(
      async (records) => {
        sizes.push(records.length);
        return committed;
      },
      { maxBatch: 100, maxBatchBytes: 1000, maxConcurrent: 1 },
      () => undefined,
    );
    await Promise.all([1, 2, 3].map((n) => batcher.submit([big(n)], [])));
    assert.deepEqual(sizes, [1, 1, 1]);
  });
});
