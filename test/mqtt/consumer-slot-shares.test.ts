/** How consumer slots are shared among live instances (consumer-slots.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shareOf } from '../../src/mqtt/consumer-slots.js';

test('shares are whole slots adding up to the total, differing by at most one, none idle while slots remain', () => {
  for (let slots = 1; slots <= 16; slots++) {
    for (let instances = 1; instances <= 20; instances++) {
      const shares = Array.from({ length: instances }, (_, rank) => shareOf(slots, instances, rank));
      assert.equal(
        shares.reduce((sum, share) => sum + share, 0),
        slots,
        `${slots} slots over ${instances}`,
      );
      assert.ok(Math.max(...shares) - Math.min(...shares) <= 1, `${slots} over ${instances}: ${shares.join(' ')}`);
      assert.equal(
        shares.filter((share) => share === 0).length,
        Math.max(0, instances - slots),
        `${slots} over ${instances}: idle only past one slot each`,
      );
    }
  }
  assert.deepEqual(
    [0, 1, 2].map((rank) => shareOf(4, 3, rank)),
    [2, 1, 1],
  );
});
