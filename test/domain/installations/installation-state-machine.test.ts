import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../src/domain/errors.js';
import {
  allowedNextStatuses,
  checkTransition,
  initialInstallationStatus,
  installationTransitions,
  isInstallationStatus,
} from '../../../src/domain/installations/installation-state-machine.js';
import { installationStatuses, type InstallationStatus } from '../../../src/domain/things/thing-types.js';

/** SPEC section 3, written out once more by hand so that a change to the table has to change this test too. */
const expected: Record<InstallationStatus, InstallationStatus[]> = {
  new: ['installed', 'quarantine', 'retired'],
  installed: ['uninstalled', 'quarantine', 'retired'],
  uninstalled: ['installed', 'quarantine', 'retired'],
  quarantine: ['installed', 'uninstalled', 'retired'],
  retired: [],
};

describe('installation state machine', () => {
  test('the table has every status and exactly the moves of the SPEC', () => {
    assert.deepEqual(Object.keys(installationTransitions).sort(), [...installationStatuses].sort());
    for (const from of installationStatuses) assert.deepEqual(allowedNextStatuses(from), expected[from], from);
    assert.equal(initialInstallationStatus, 'new');
  });

  for (const from of installationStatuses) {
    for (const to of installationStatuses) {
      if (from === to) continue;
      const allowed = expected[from].includes(to);
      test(`${from} -> ${to} is ${allowed ? 'allowed' : 'refused, naming the allowed next statuses'}`, () => {
        if (allowed) {
          assert.doesNotThrow(() => checkTransition(from, to));
          return;
        }
        assert.throws(
          () => checkTransition(from, to),
          (error: unknown) =>
            error instanceof AppError &&
            error.code === 'INVALID_TRANSITION' &&
            JSON.stringify(error.meta.allowed) === JSON.stringify(expected[from]),
        );
      });
    }
  }

  test('retired is final and says so', () => {
    assert.throws(() => checkTransition('retired', 'installed'), /retired is final/);
  });

  test('isInstallationStatus knows exactly the five statuses, case-sensitively', () => {
    for (const status of installationStatuses) assert.equal(isInstallationStatus(status), true);
    for (const other of ['INSTALLED', 'Installed', '', 'deployed', ' installed', 1, null, undefined])
      assert.equal(isInstallationStatus(other), false, String(other));
  });
});
