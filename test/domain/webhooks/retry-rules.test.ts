/** The retry rule of SPEC section 11 (Delivery): the schedule's delay before each attempt, ±10 % jitter at most, Retry-After capped. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retryDelayMs } from '../../../src/domain/webhooks/retry-rules.js';

const schedule = [0, 5, 300, 1800];

test('the jitter stays within ±10 % of the schedule entry, and reaches both ends', () => {
  assert.equal(
    retryDelayMs(schedule, 1, null, () => 0),
    4500,
  );
  assert.equal(
    retryDelayMs(schedule, 1, null, () => 0.5),
    5000,
  );
  assert.equal(
    retryDelayMs(schedule, 2, null, () => 0.999_999),
    330_000,
  );
  let low = Infinity;
  let high = 0;
  for (let i = 0; i < 10_000; i++) {
    const delay = retryDelayMs(schedule, 3, null)!;
    low = Math.min(low, delay);
    high = Math.max(high, delay);
  }
  assert.ok(low >= 1_620_000 && high <= 1_980_000, `${low}..${high}`);
  // Spread, not a constant: a fleet failed together does not come back together.
  assert.ok(high - low > 300_000, `${low}..${high}`);
});

test('after the last entry there is no retry; Retry-After replaces the entry, capped by the longest', () => {
  assert.equal(retryDelayMs(schedule, 4, null), undefined);
  assert.equal(retryDelayMs(schedule, 1, 0), 0);
  assert.equal(retryDelayMs(schedule, 1, 60), 60_000);
  assert.equal(retryDelayMs(schedule, 1, 86_400), 1_800_000);
  assert.equal(retryDelayMs(schedule, 4, 1), undefined);
});
