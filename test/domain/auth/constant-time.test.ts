import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sameSecret } from '../../../src/domain/auth/constant-time.js';

describe('sameSecret (issue 32, finding 13d)', () => {
  test('equal only for the same bytes, whatever the lengths', () => {
    const cases: [string | Buffer, string | Buffer, boolean][] = [
      ['metrics-token-0123456789', 'metrics-token-0123456789', true],
      [Buffer.from('abc'), 'abc', true],
      ['', '', true],
      ['metrics-token-0123456789', 'metrics-token-0123456788', false],
      ['metrics-token', 'metrics-token-0123456789', false],
      ['metrics-token-0123456789-and-more', 'metrics-token-0123456789', false],
      ['', 'metrics-token-0123456789', false],
      ['ümlaut', 'umlaut', false],
    ];
    for (const [sent, expected, equal] of cases) assert.equal(sameSecret(sent, expected), equal, `${String(sent)} / ${String(expected)}`);
  });

  test('texts of different lengths are compared, not refused early: no RangeError from timingSafeEqual', () => {
    assert.doesNotThrow(() => sameSecret('a', 'a'.repeat(10_000)));
  });
});
