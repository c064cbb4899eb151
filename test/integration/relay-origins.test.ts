/**
 * Which instances the relay takes batches from (issue 32, finding 6): those live in the register. A batch of an
 * origin not known yet waits for the register to be read again (an instance relays a moment before its first
 * heartbeat), in arrival order, and is refused once the wait is over; the waiting room is bounded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RelayOrigins } from '../../src/integration/relay-origins.js';

function started(live: string[], options: { waitMs?: number; maxWaiting?: number } = {}) {
  const refused: string[] = [];
  let reads = 0;
  const origins = new RelayOrigins({
    liveInstanceIds: async () => {
      reads += 1;
      return [...live];
    },
    onRefused: (origin) => refused.push(origin),
    onReadFailed: (error) => assert.fail(String(error)),
    ...options,
  });
  return { origins, refused, reads: () => reads };
}

const until = async (done: () => boolean) => {
  for (let waited = 0; !done(); waited += 50) {
    assert.ok(waited < 5_000, 'in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

test('a live origin is taken at once, with no read of the register', async () => {
  const { origins, reads } = started(['a']);
  await origins.start();
  const accepted: string[] = [];
  origins.admit('a', () => accepted.push('a1'));
  assert.deepEqual(accepted, ['a1']);
  assert.equal(reads(), 1);
  origins.stop();
});

test('an origin that registers a moment later is taken then, its batches in arrival order; one that never does is refused', async () => {
  const live = ['a'];
  const { origins, refused } = started(live, { waitMs: 1_500 });
  await origins.start();
  const accepted: string[] = [];
  origins.admit('new', () => accepted.push('new1'));
  origins.admit('ghost', () => accepted.push('ghost1'));
  origins.admit('new', () => accepted.push('new2'));
  live.push('new');
  await until(() => accepted.length === 2);
  assert.deepEqual(accepted, ['new1', 'new2']);
  origins.admit('new', () => accepted.push('new3'));
  assert.deepEqual(accepted, ['new1', 'new2', 'new3'], 'known now: at once');
  await until(() => refused.length === 1);
  assert.deepEqual(refused, ['ghost']);
  origins.stop();
});

test('the waiting room is bounded: past it, a batch of an unknown origin is refused at once', async () => {
  const { origins, refused } = started([], { maxWaiting: 3 });
  await origins.start();
  for (let i = 0; i < 5; i++) origins.admit(`x${i}`, () => assert.fail('not live'));
  assert.deepEqual(refused, ['x3', 'x4']);
  origins.stop();
});
