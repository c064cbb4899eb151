/**
 * The order buffer of live streams (issue 18): a thing's messages leave in stored order (seq) whatever order they
 * arrive in, a missing one is waited for only so long, a seq seen before is dropped, and memory stays bounded.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import type { StoredMessage } from '../../src/domain/messages/message-types.js';
import { StoredOrderBuffer } from '../../src/integration/stored-order.js';

const wait = 2_000;
let clock = 1_000_000;
const buffers: StoredOrderBuffer[] = [];
afterEach(() => {
  for (const buffer of buffers.splice(0)) buffer.close();
});

/** A buffer on a hand-driven clock, and what it delivered, as `tuid:seq`, one array per delivery. */
function started(options: { maxHeld?: number; idleMs?: number } = {}) {
  const deliveries: string[][] = [];
  const buffer = new StoredOrderBuffer({
    deliver: (messages) => deliveries.push(messages.map((m) => (m.seq === undefined ? `${m.tuid}:-` : `${m.tuid}:${m.seq}`))),
    waitMs: wait,
    now: () => clock,
    ...options,
  });
  buffer.listening(true);
  // Listening began a while ago: a predecessor committed since is waited for.
  clock += 60_000;
  buffers.push(buffer);
  return { buffer, deliveries, delivered: () => deliveries.flat() };
}

/** Message `seq` of `tuid`, its predecessor committed `previousAgoMs` before now (null: none). */
function message(tuid: string, seq: number | undefined, previousAgoMs: number | null = 10): StoredMessage {
  return {
    organizationId: 'acme',
    tuid,
    tsmId: 1110,
    tsmEv: 10,
    tsmTs: 1_793_000_000 + (seq ?? 0),
    gatewayTuid: 'GW-1',
    fingerprint: `f${seq}`,
    groupId: null,
    receivedAt: clock,
    body: '{}',
    message: {},
    problems: [],
    ...(seq === undefined ? {} : { seq, previousAt: previousAgoMs === null ? null : clock - previousAgoMs }),
  };
}

test('out of order in, in order out: a message waits for its predecessor, then both go at once', () => {
  const { buffer, deliveries, delivered } = started();
  buffer.push([message('T-1', 1, null)]);
  clock += 5;
  buffer.push([message('T-1', 3)]);
  assert.deepEqual(delivered(), ['T-1:1'], 'seq 3 is held: seq 2 was committed a moment ago and may be on its way');
  buffer.push([message('T-1', 2), message('T-2', 7, 60_000)]);
  assert.deepEqual(deliveries, [['T-1:1'], ['T-1:2', 'T-1:3', 'T-2:7']]);
  assert.deepEqual(buffer.size, { things: 2, held: 0 });
});

test("one thing's gap holds that thing only; messages without a seq (SQLite) pass through as they come", () => {
  const { buffer, delivered } = started();
  buffer.push([message('T-1', 1, null), message('T-2', 1, null)]);
  buffer.push([message('T-1', 3), message('T-2', 2), message('X', undefined), message('T-2', 3)]);
  assert.deepEqual(delivered(), ['T-1:1', 'T-2:1', 'T-2:2', 'X:-', 'T-2:3']);
});

test('a predecessor that never comes is skipped once the wait is over, and arriving late it is dropped', () => {
  const { buffer, delivered } = started();
  buffer.push([message('T-1', 1, null)]);
  buffer.push([message('T-1', 3, 10), message('T-1', 4, 0)]);
  clock += wait - 11;
  buffer.releaseDue();
  assert.deepEqual(delivered(), ['T-1:1'], 'still within the wait');
  clock += 1;
  buffer.releaseDue();
  assert.deepEqual(delivered(), ['T-1:1', 'T-1:3', 'T-1:4'], "the gap is skipped 2 s after seq 2's commit");
  assert.equal(buffer.counts.skipped, 1);
  buffer.push([message('T-1', 2), message('T-1', 5)]);
  assert.deepEqual(delivered(), ['T-1:1', 'T-1:3', 'T-1:4', 'T-1:5'], 'seq 2 comes too late: dropped, the order kept');
  assert.equal(buffer.counts.dropped, 1);
});

test('no wait for a predecessor committed longer ago than the wait, or before anyone listened', () => {
  const { buffer, delivered } = started();
  buffer.push([message('T-1', 1, null)]);
  buffer.push([message('T-1', 5, wait)]);
  assert.deepEqual(delivered(), ['T-1:1', 'T-1:5'], 'seq 2 to 4 are older than the wait: lost, or past the bound anyway');
  clock += 1;
  buffer.listening(false);
  clock += 1;
  buffer.listening(true);
  buffer.push([message('T-3', 9, 1)]);
  assert.deepEqual(delivered(), ['T-1:1', 'T-1:5', 'T-3:9'], 'seq 8 was committed before this listener: not waited for');
});

test('a thing first heard here waits for a predecessor committed a moment ago, at most the wait', () => {
  const { buffer, delivered } = started();
  buffer.push([message('T-1', 8, 50)]);
  assert.deepEqual(delivered(), [], 'seq 7 was committed 50 ms ago: it may be on its way');
  buffer.push([message('T-1', 7, wait + 1)]);
  assert.deepEqual(delivered(), ['T-1:7', 'T-1:8'], 'seq 6 was committed longer ago than the wait: seq 7 goes at once');
  buffer.push([message('T-2', 4, 50)]);
  clock += wait - 50;
  buffer.releaseDue();
  assert.deepEqual(delivered(), ['T-1:7', 'T-1:8', 'T-2:4'], 'or its predecessor never comes: released 2 s after its commit');
});

test('duplicates are dropped: a seq already delivered, or already held', () => {
  const { buffer, delivered } = started();
  buffer.push([message('T-1', 1, null), message('T-1', 2)]);
  buffer.push([message('T-1', 4), message('T-1', 4), message('T-1', 2)]);
  buffer.push([message('T-1', 3)]);
  buffer.push([message('T-1', 3), message('T-1', 1)]);
  assert.deepEqual(delivered(), ['T-1:1', 'T-1:2', 'T-1:3', 'T-1:4']);
  assert.equal(buffer.counts.dropped, 4);
});

test('a thing deleted and heard of again starts afresh: seq 1 without a predecessor is no duplicate', () => {
  const { buffer, delivered } = started();
  buffer.push([message('T-1', 1, null), message('T-1', 2)]);
  buffer.push([message('T-1', 1, null), message('T-1', 2), message('T-1', 2)]);
  assert.deepEqual(delivered(), ['T-1:1', 'T-1:2', 'T-1:1', 'T-1:2']);
  assert.equal(buffer.counts.dropped, 1);
});

test('memory is bounded: past the cap the longest-waiting thing is released, and idle things are forgotten', () => {
  const { buffer, delivered } = started({ maxHeld: 3, idleMs: 10_000 });
  buffer.push([message('A', 1, null), message('B', 1, null), message('C', 1, null)]);
  buffer.push([message('A', 3, 30), message('A', 4, 0)]);
  clock += 10;
  buffer.push([message('B', 3, 30)]);
  assert.deepEqual(buffer.size, { things: 3, held: 3 });
  clock += 10;
  buffer.push([message('C', 3, 30)]);
  assert.deepEqual(delivered(), ['A:1', 'B:1', 'C:1', 'A:3', 'A:4'], "four held: A's wait ends first, so A goes");
  assert.deepEqual(buffer.size, { things: 3, held: 2 });

  clock += wait;
  buffer.releaseDue();
  assert.deepEqual(buffer.size, { things: 3, held: 0 });
  clock += 10_001;
  buffer.forgetIdle();
  assert.deepEqual(buffer.size, { things: 0, held: 0 });
  buffer.push([message('A', 9, 60_000)]);
  assert.deepEqual(delivered().at(-1), 'A:9', 'a forgotten thing starts afresh');
});

test('when nobody listens everything is forgotten; closing delivers what is held, in order', () => {
  const { buffer, delivered } = started();
  buffer.push([message('T-1', 1, null), message('T-1', 3)]);
  buffer.listening(false);
  assert.deepEqual(buffer.size, { things: 0, held: 0 });
  buffer.listening(true);
  clock += 1_000;
  buffer.push([message('T-2', 1, null), message('T-2', 4), message('T-2', 2)]);
  buffer.close();
  assert.deepEqual(delivered(), ['T-1:1', 'T-2:1', 'T-2:2', 'T-2:4']);
});
