import { AppError, fieldProblem, type FieldProblem } from '../errors.js';
import { installationStatuses, type InstallationStatus } from '../things/thing-types.js';

/**
 * The installation status state machine (SPEC section 3), as data: each status and the statuses it may move to.
 * Every transport and every test reads this table; no other code lists transitions. `retired` is final.
 */
export const installationTransitions: Readonly<Record<InstallationStatus, readonly InstallationStatus[]>> = {
  new: ['installed', 'quarantine', 'retired'],
  installed: ['uninstalled', 'quarantine', 'retired'],
  uninstalled: ['installed', 'quarantine', 'retired'],
  quarantine: ['installed', 'uninstalled', 'retired'],
  retired: [],
};

/** The status every thing starts in: the first entry of its history, whoever claimed it. */
export const initialInstallationStatus: InstallationStatus = 'new';

export function isInstallationStatus(value: unknown): value is InstallationStatus {
  return typeof value === 'string' && (installationStatuses as readonly string[]).includes(value);
}

/** The problem of a value that is no installation status, naming `field`; undefined for a status. Every caller states it so. */
export function checkInstallationStatus(field: string, value: unknown): FieldProblem | undefined {
  return isInstallationStatus(value) ? undefined : fieldProblem(field, `must be one of ${installationStatuses.join(', ')}`);
}

/** The statuses a thing in `from` may move to, in the order of `installationStatuses`. */
export function allowedNextStatuses(from: InstallationStatus): readonly InstallationStatus[] {
  return installationTransitions[from];
}

/**
 * Throws INVALID_TRANSITION (409, `allowed` naming the next statuses) unless `from` may move to `to`. Staying in
 * the same status is not a move: callers treat it as a no-op before asking.
 */
export function checkTransition(from: InstallationStatus, to: InstallationStatus): void {
  const allowed = allowedNextStatuses(from);
  if (allowed.includes(to)) return;
  const next = allowed.length === 0 ? `${from} is final` : `allowed next: ${allowed.join(', ')}`;
  throw new AppError('INVALID_TRANSITION', `The installation status cannot move from ${from} to ${to}; ${next}.`, [], {
    allowed: [...allowed],
  });
}
