import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../src/domain/errors.js';
import { PasswordHashing, type PasswordHasher } from '../../../src/domain/identity/password-hashing.js';

/** argon2 stand-in whose verifies finish when the test says, in the order they started. */
function heldArgon2(): PasswordHasher & { started: number; finishOne(): void } {
  const waiting: (() => void)[] = [];
  const held = {
    started: 0,
    hash: async () => 'hash',
    verify: async () => {
      held.started += 1;
      await new Promise<void>((resolve) => waiting.push(resolve));
      return true;
    },
    finishOne: () => waiting.shift()?.(),
  };
  return held;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('PasswordHashing: the cap on argon2 work (issue 32, finding 9)', () => {
  test('past the running turns and the queue, work is refused at once as SERVICE_UNAVAILABLE with retryAfterS', async () => {
    const argon2 = heldArgon2();
    const outcomes: string[] = [];
    const hashing = new PasswordHashing({ concurrency: 2, queue: 1 }, argon2, (outcome) => outcomes.push(outcome));
    const running = [hashing.verify('h', 'p'), hashing.verify('h', 'p'), hashing.verify('h', 'p')];
    await assert.rejects(hashing.verify('h', 'p'), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'SERVICE_UNAVAILABLE');
      assert.equal(error.meta.retryAfterS, 1);
      return true;
    });
    await settle();
    assert.equal(argon2.started, 2);
    assert.deepEqual(hashing.load, { running: 2, waiting: 1 });
    // A finished turn passes to the one waiting: never more than two at once.
    argon2.finishOne();
    await settle();
    assert.equal(argon2.started, 3);
    assert.deepEqual(hashing.load, { running: 2, waiting: 0 });
    argon2.finishOne();
    argon2.finishOne();
    assert.deepEqual(await Promise.all(running), [true, true, true]);
    assert.deepEqual(hashing.load, { running: 0, waiting: 0 });
    assert.deepEqual(outcomes.sort(), ['refused', 'run', 'run', 'run']);
  });

  test('patient work shares the turns but waits beyond the queue, and does not use up the queue', async () => {
    const argon2 = heldArgon2();
    const hashing = new PasswordHashing({ concurrency: 1, queue: 1 }, argon2);
    const patient = hashing.patient();
    const first = patient.verify('h', 'p');
    const waiting = [patient.verify('h', 'p'), patient.verify('h', 'p'), patient.verify('h', 'p')];
    await settle();
    assert.equal(argon2.started, 1);
    // Three patient ones wait; the queue's one place is still free for a sign-in, the next one is refused.
    const queued = hashing.verify('h', 'p');
    await assert.rejects(hashing.verify('h', 'p'), /retry in a second/);
    for (let i = 0; i < 5; i += 1) {
      argon2.finishOne();
      await settle();
    }
    assert.deepEqual(await Promise.all([first, ...waiting, queued]), [true, true, true, true, true]);
    assert.equal(argon2.started, 5);
  });
});
