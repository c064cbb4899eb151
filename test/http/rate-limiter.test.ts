import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/domain/clock.js';
import { RateLimiter } from '../../src/http/rate-limiter.js';

const start = Date.UTC(2026, 10, 26, 2, 0, 0);
const refused = (limiter: RateLimiter, key: string) => assert.throws(() => limiter.hit(key), { code: 'RATE_LIMITED' });

test('a key is refused past the limit in its minute, and counted afresh in the next', () => {
  const clock = new ManualClock(start + 1_000);
  const limiter = new RateLimiter(3, () => clock.now());
  for (let i = 0; i < 3; i++) limiter.hit('a');
  refused(limiter, 'a');
  limiter.hit('b');
  clock.set(start + 60_000);
  limiter.hit('a');
});

test("the other instances' counts are added to this one's, for the window they were counted in only", () => {
  const clock = new ManualClock(start + 1_000);
  const limiter = new RateLimiter(10, () => clock.now());
  limiter.shareCounts();
  for (let i = 0; i < 4; i++) limiter.hit('a');
  limiter.hit('b');
  assert.deepEqual(limiter.takeChanges(), {
    windowStart: start,
    counts: [
      ['a', 4],
      ['b', 1],
    ],
  });
  assert.deepEqual(limiter.takeChanges().counts, [], 'taken once');
  assert.deepEqual(limiter.keysCountedAtLeast(2), ['a']);

  limiter.setOthers(start, new Map([['a', 6]]));
  refused(limiter, 'a');
  limiter.setOthers(start - 60_000, new Map([['b', 100]]));
  limiter.hit('b');

  clock.set(start + 60_000);
  limiter.hit('a');
  assert.deepEqual(
    limiter.takeChanges(),
    { windowStart: start + 60_000, counts: [['a', 1]] },
    "a new window forgets the last one's counts",
  );
});
