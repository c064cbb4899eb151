/**
 * The order buffer at scale (issue 32, finding 5): releasing a message used to scan every waiting thing, and each
 * drain took `Math.min` over every held seq of the thing, so 15,000 held messages blocked one push for 21 s. Each
 * message now costs O(log n) work (heaps keyed by release deadline and by seq), which the buffer counts in
 * `counts.steps` (heap moves and entries visited); the assertions bound that count, never a time. Also: memory
 * bounded by `maxHeld` (the overflow skipped as a gap), and a forged far-off seq not stopping a thing (finding 6).
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import type { StoredMessage } from '../../src/domain/messages/message-types.js';
import { StoredOrderBuffer } from '../../src/integration/stored-order.js';

let clock = 5_000_000;
const buffers: StoredOrderBuffer[] = [];
afterEach(() => {
  for (const buffer of buffers.splice(0)) buffer.close();
});

function started(options: { maxHeld?: number } = {}) {
  let delivered = 0;
  const seen: string[] = [];
  const buffer = new StoredOrderBuffer({
    deliver: (messages) => {
      delivered += messages.length;
      if (seen.length < 100) seen.push(...messages.map((m) => `${m.organizationId}/${m.tuid}:${m.seq}`));
    },
    waitMs: 2_000,
    now: () => clock,
    ...options,
  });
  buffer.listening(true);
  clock += 60_000;
  buffers.push(buffer);
  return { buffer, delivered: () => delivered, seen };
}

function message(tuid: string, seq: number, previousAgoMs: number | null = 10, organizationId = 'acme'): StoredMessage {
  return {
    organizationId,
    tuid,
    tsmId: 1110,
    tsmEv: 10,
    tsmTs: 1_793_000_000,
    gatewayTuid: 'GW-1',
    fingerprint: 'f',
    groupId: null,
    receivedAt: clock,
    body: '{}',
    message: {},
    problems: [],
    seq,
    previousAt: previousAgoMs === null ? null : clock - previousAgoMs,
  };
}

const log2 = (n: number) => Math.log2(n + 2);

for (const shape of ['one thing holding 20,000 seqs', '20,000 things holding one each'] as const)
  test(`20,000 held messages (${shape}): every push and the drain cost O(log n) steps`, () => {
    const total = 20_000;
    const { buffer, delivered } = started({ maxHeld: 50_000 });
    if (shape === 'one thing holding 20,000 seqs') buffer.push([message('T-0', 1, null)]);
    else for (let i = 0; i < total; i++) buffer.push([message(`T-${i}`, 1, null)]);
    let worstPush = 0;
    for (let i = 0; i < total; i++) {
      const before = buffer.counts.steps;
      // Every other seq, each waiting for a predecessor that never comes: all held.
      buffer.push([shape === 'one thing holding 20,000 seqs' ? message('T-0', 3 + 2 * i) : message(`T-${i}`, 3)]);
      worstPush = Math.max(worstPush, buffer.counts.steps - before);
    }
    assert.equal(buffer.size.held, total);
    assert.ok(worstPush <= 8 * log2(total), `one push took ${worstPush} steps with ${total} held (bound ${8 * log2(total)})`);

    const before = buffer.counts.steps;
    const deliveredBefore = delivered();
    clock += 2_000;
    buffer.releaseDue();
    assert.equal(delivered() - deliveredBefore, total, 'all released once due');
    const drain = buffer.counts.steps - before;
    assert.ok(drain <= 8 * total * log2(total), `the drain took ${drain} steps for ${total} messages`);
    assert.equal(buffer.size.held, 0);
  });

test('past maxHeld, the earliest deadline is released as a gap at O(log n) per push, and held stays at the cap', () => {
  const cap = 10_000;
  const { buffer } = started({ maxHeld: cap });
  for (let i = 0; i < 3 * cap; i++) buffer.push([message(`T-${i}`, 1, null)]);
  let worstPush = 0;
  for (let i = 0; i < 3 * cap; i++) {
    const before = buffer.counts.steps;
    clock += 1;
    buffer.push([message(`T-${i}`, 3)]);
    worstPush = Math.max(worstPush, buffer.counts.steps - before);
    assert.ok(buffer.size.held <= cap);
  }
  assert.equal(buffer.size.held, cap);
  assert.equal(buffer.counts.skipped, 2 * cap, 'each message released over the cap skipped its gap');
  assert.ok(worstPush <= 16 * log2(cap), `one push took ${worstPush} steps at the cap`);
});

test('a forged seq of 2^52 does not stop the genuine messages of that thing after it', () => {
  const { buffer, seen } = started();
  buffer.push([message('T-1', 1, null), message('T-1', 2)]);
  buffer.push([message('T-1', 2 ** 52, 60_000)]);
  buffer.push([message('T-1', 3), message('T-1', 4)]);
  assert.deepEqual(seen.slice(-2), ['acme/T-1:3', 'acme/T-1:4'], `later genuine messages delivered: ${seen.join(' ')}`);
});

test('two organizations with the same TUID are ordered apart', () => {
  const { buffer, seen } = started();
  buffer.push([1, 2, 3, 4, 5].map((seq) => message('T-1', seq, seq === 1 ? null : 10, 'acme')));
  // The other organization's T-1 is at seq 3: behind acme's, which must not make it a duplicate.
  buffer.push([message('T-1', 3, 60_000, 'other')]);
  buffer.push([message('T-1', 4, 10, 'other'), message('T-1', 6, 10, 'acme')]);
  assert.deepEqual(seen.slice(5), ['other/T-1:3', 'other/T-1:4', 'acme/T-1:6']);
});
