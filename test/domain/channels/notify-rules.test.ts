/** SPEC section 13 noise control, the pure decisions: the interval per (rule, thing) and the digest per (channel, rule). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideDigest, decideInterval, type IntervalState } from '../../../src/domain/channels/notify-rules.js';

const interval = 1_000;

describe('NOTIFY_MIN_INTERVAL_S per (rule, thing)', () => {
  test('the first change is sent at once, and a change after the interval too', () => {
    const first = decideInterval(undefined, 'open', 0, interval);
    assert.equal(first.action, 'send');
    const later = decideInterval(first.next, 'closed', 1_000, interval);
    assert.deepEqual(later, { action: 'send', next: { lastState: 'closed', lastAt: 1_000, deferredIds: null, deferredBase: null } });
  });

  test('a change within the interval waits for its end; the same state as last sent sends nothing', () => {
    const sent: IntervalState = { lastState: 'open', lastAt: 0, deferredIds: null, deferredBase: null };
    assert.deepEqual(decideInterval(sent, 'open', 100, interval), { action: 'none', next: sent });
    const deferred = decideInterval(sent, 'closed', 300, interval);
    assert.equal(deferred.action, 'defer');
    assert.equal(deferred.action === 'defer' && deferred.dueAt, 1_000);
    assert.deepEqual(deferred.next, { lastState: 'closed', lastAt: 1_000, deferredIds: [], deferredBase: 'open' });
  });

  test('back to the state last heard before the deferred one goes out: it is dropped, and the interval is as before', () => {
    const waiting: IntervalState = { lastState: 'closed', lastAt: 1_000, deferredIds: ['whd_a'], deferredBase: 'open' };
    const back = decideInterval(waiting, 'open', 500, interval);
    assert.deepEqual(back, {
      action: 'drop',
      ids: ['whd_a'],
      next: { lastState: 'open', lastAt: 0, deferredIds: null, deferredBase: null },
    });
    // Then closing again within the interval defers once more, due at the same end.
    const again = decideInterval(back.next, 'closed', 700, interval);
    assert.equal(again.action === 'defer' && again.dueAt, 1_000);
  });

  test('once the deferred notification is due, the next change is measured from it', () => {
    const waiting: IntervalState = { lastState: 'closed', lastAt: 1_000, deferredIds: ['whd_a'], deferredBase: 'open' };
    const soon = decideInterval(waiting, 'open', 1_500, interval);
    assert.equal(soon.action === 'defer' && soon.dueAt, 2_000);
    const late = decideInterval(waiting, 'open', 2_000, interval);
    assert.equal(late.action, 'send');
  });
});

describe('NOTIFY_DIGEST_THRESHOLD per (channel, rule)', () => {
  test('up to the threshold singly in a window, then into one digest due at its end; a new window starts afresh', () => {
    let state = decideDigest(undefined, 0, 2, 60_000);
    assert.equal(state.action, 'single');
    state = decideDigest(state.next, 10, 2, 60_000);
    assert.equal(state.action, 'single');
    const third = decideDigest(state.next, 20, 2, 60_000);
    assert.deepEqual(third, { action: 'digest', dueAt: 60_000, next: state.next });
    assert.equal(decideDigest({ ...state.next, digestId: 'whd_d' }, 59_999, 2, 60_000).action, 'digest');
    assert.deepEqual(decideDigest({ ...state.next, digestId: 'whd_d' }, 60_000, 2, 60_000), {
      action: 'single',
      next: { windowStart: 60_000, singleCount: 1, digestId: null },
    });
  });
});
