/** SPEC section 13 noise control, the pure decisions: the interval per (rule, thing) and the digest per (channel, rule). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideDigest, decideInterval, type DigestState, type IntervalState } from '../../../src/domain/channels/notify-rules.js';

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

describe('NOTIFY_DIGEST_THRESHOLD per (channel, rule), a sliding window', () => {
  const window = 2_000;
  const empty: DigestState = { recentSends: [], digestId: null, digestDueAt: null };
  /** Feeds openings at these times; the digest id is set as the writer sets it once the row is written. */
  const run = (times: number[], start: DigestState = empty) => {
    let state = start;
    const actions: string[] = [];
    for (const now of times) {
      const decision = decideDigest(state, now, 3, window);
      actions.push(decision.action === 'single' ? 'single' : `digest@${decision.dueAt}`);
      state = decision.action === 'digest' && decision.next.digestId === null ? { ...decision.next, digestId: 'whd_d' } : decision.next;
    }
    return { actions, state };
  };

  test('up to the threshold singly, then a digest due a window after its first entry; later openings join it', () => {
    const { actions, state } = run([0, 10, 20, 30, 1_500]);
    assert.deepEqual(actions, ['single', 'single', 'single', 'digest@2030', 'digest@2030']);
    // Send times are kept rounded up to a 60th of the window (33 ms of 2 s).
    assert.deepEqual(state, {
      recentSends: [
        [0, 1],
        [33, 2],
      ],
      digestId: 'whd_d',
      digestDueAt: 2_030,
    });
  });

  test('openings just after a fixed window would have ended still count the singles of the last window', () => {
    // Three near the end of what a fixed window starting at 0 would be, three just after its end: in any 2 s at most
    // three go singly, so the second three make one single (the one at 0 has left the window) and a digest.
    const { actions } = run([0, 1_900, 1_950, 2_050, 2_060, 2_070]);
    assert.deepEqual(actions, ['single', 'single', 'single', 'single', 'digest@4060', 'digest@4060']);
  });

  test('the digest counts as one message when due; after a quiet window the count starts over', () => {
    const busy = run([0, 10, 20, 30]).state;
    // The digest went out at 2030: one of three in the window that follows.
    const afterDigest = run([2_100, 2_200, 2_300], busy);
    assert.deepEqual(afterDigest.actions, ['single', 'single', 'digest@4300']);
    assert.deepEqual(run([2_100], busy).state, {
      recentSends: [
        [2_046, 1],
        [2_112, 1],
      ],
      digestId: null,
      digestDueAt: null,
    });
    // Quiet for a window after the last message (sent at 2030, counted until 2046 + 2000): three singly again.
    assert.deepEqual(run([4_045], busy).actions, ['single']);
    assert.deepEqual(run([4_046, 4_047, 4_048, 4_049], busy).actions, ['single', 'single', 'single', 'digest@6049']);
  });

  test('the state stays bounded, whatever the threshold: a pair per 60th of the window, none older than the window', () => {
    let state = empty;
    let last = 0;
    for (let i = 0; i < 5_000; i += 1) {
      last = i * 7;
      state = decideDigest(state, last, 100_000, window).next;
    }
    // Rounded ends after now - window up to the step after now: at most 60 steps and the two partial ones.
    assert.ok(state.recentSends.length <= 62, JSON.stringify(state));
    assert.ok(
      state.recentSends.every(([end]) => end > last - window),
      JSON.stringify(state),
    );
    // Every single of the last window counted, and a few more at its old edge (rounded up, they count up to a step longer).
    const counted = state.recentSends.reduce((sum, [, n]) => sum + n, 0);
    const inWindow = Math.ceil(window / 7);
    assert.ok(counted >= inWindow && counted <= inWindow + Math.ceil(33 / 7), `${counted} counted, ${inWindow} sent in the window`);
  });

  test('in any window, at most the threshold of messages (singles and digests), whatever the arrival pattern', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    let now = 0;
    const times = Array.from({ length: 2_000 }, () => (now += Math.floor(random() * 400)));
    let state = empty;
    const sent: number[] = [];
    for (const at of times) {
      const decision = decideDigest(state, at, 3, window);
      if (decision.action === 'single') sent.push(at);
      else if (decision.next.digestId === null) sent.push(decision.dueAt);
      state = decision.action === 'digest' && decision.next.digestId === null ? { ...decision.next, digestId: 'whd_d' } : decision.next;
    }
    sent.sort((a, b) => a - b);
    for (let i = 3; i < sent.length; i += 1)
      assert.ok(sent[i]! - sent[i - 3]! >= window, `four messages within ${window} ms at ${sent[i]}`);
  });
});
