import type { DomainDeps } from '../domain-deps.js';
import { audited } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import { conflict, invalidField, validationFailed } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { checkNewTuid, checkTuid, requireThing, thingNotFound } from '../things/thing-access.js';
import type { Thing } from '../things/thing-types.js';
import { checkInstallationStatus, checkTransition, initialInstallationStatus, isInstallationStatus } from './installation-state-machine.js';
import { changesBetween, emitThingChanged } from '../things/thing-changes.js';
import type { InstallationEntry } from './installation-types.js';

/** `limit` of the installation history: absent means the whole history. */
export const installationHistoryLimit = { min: 1, max: 1000 } as const;

/** The outcome of setting a status: the thing as it is now and the history entry that set its current status. */
export interface InstallationChange {
  thing: Thing;
  entry: InstallationEntry;
  /** false when the thing already had the status (a no-op; `entry` is the one that set it). */
  changed: boolean;
}

// A compare-and-set that loses to a concurrent change is retried this often before giving up with CONFLICT.
const maxAttempts = 5;

/**
 * Sets a thing's installation status (SPEC section 3, POST /things/{tuid}/installations).
 * - Unknown status: VALIDATION_FAILED. Another organization's thing: NOT_FOUND, as for an unknown TUID.
 * - The current status again: a no-op.
 * - A move the state machine does not allow: INVALID_TRANSITION naming the allowed next statuses.
 * - A thing nobody owns is claimed for the caller's organization: its history gets `new`, then the status.
 * A refused request writes nothing (a disallowed move on an unowned thing does not create it).
 */
export async function setInstallationStatus(
  deps: Pick<DomainDeps, 'store' | 'clock' | 'reservedTuids'> & Partial<Pick<DomainDeps, 'events'>>,
  principal: Principal,
  input: { tuid: string; status: unknown },
): Promise<InstallationChange> {
  checkTuid(input.tuid);
  const operation = {
    organizationId: principal.organizationId,
    action: 'thing.set_installation_status',
    target: { type: 'thing', id: input.tuid },
  };
  let unchanged: InstallationChange | undefined;
  let change: ChangeWithBefore;
  // A no-op (the current status again) records nothing: the transaction is left by throwing it out.
  try {
    change = await audited(deps, principal, operation, async () => {
      const change = await changeInstallationStatus(deps, principal, input);
      if (!change.changed) throw (unchanged = change);
      return {
        result: change,
        before: auditFields({ status: change.before?.installationStatus ?? null }),
        after: auditFields({ status: change.thing.installationStatus }),
      };
    });
  } catch (error) {
    if (unchanged && error === unchanged) return unchanged;
    throw error;
  }
  // Announced once committed, with its entry (`before` undefined: the call claimed the thing).
  emitThingChanged(deps.events, change.thing, changesBetween(change.before, change.thing), principal.responsible);
  return { thing: change.thing, entry: change.entry, changed: true };
}

/** A change with the caller's thing as it was before (undefined: nobody owned it). */
type ChangeWithBefore = InstallationChange & { before?: Thing };

async function changeInstallationStatus(
  deps: Pick<DomainDeps, 'store' | 'clock' | 'reservedTuids'>,
  principal: Principal,
  input: { tuid: string; status: unknown },
): Promise<ChangeWithBefore> {
  const status = input.status;
  if (!isInstallationStatus(status)) throw validationFailed([checkInstallationStatus('status', status)!]);
  const { store } = deps;
  const write = { tuid: input.tuid, organizationId: principal.organizationId, status, responsible: principal.responsible };
  for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
    const thing = await store.things.get(input.tuid);
    if (!thing) {
      checkNewTuid(input.tuid, deps.reservedTuids);
      if (status !== initialInstallationStatus) checkTransition(initialInstallationStatus, status);
      const at = deps.clock.now();
      const claimed = await store.installations.claimWithStatus({ ...write, at });
      if (claimed) return { thing: claimed, entry: { status, timestamp: at, responsible: write.responsible }, changed: true };
      continue; // claimed by someone else meanwhile: decide again on the owner and status now stored
    }
    if (thing.organizationId !== principal.organizationId) throw thingNotFound(input.tuid);
    if (thing.installationStatus === status) return { thing, entry: await newestEntry(deps, thing), changed: false };
    checkTransition(thing.installationStatus, status);
    const at = deps.clock.now();
    const changed = await store.installations.changeStatus({ ...write, from: thing.installationStatus, at });
    if (changed) return { thing: changed, entry: { status, timestamp: at, responsible: write.responsible }, changed: true, before: thing };
  }
  throw conflict(`The installation status of ${input.tuid} is changing concurrently; retry.`);
}

/**
 * A thing's installation history, newest first; never empty, as a thing's first status is its first entry.
 * `limit` undefined: all of it; otherwise 1 to 1000. NOT_FOUND for a thing the caller cannot see.
 */
export async function listInstallationHistory(
  deps: Pick<DomainDeps, 'store'>,
  principal: Principal,
  input: { tuid: string; limit?: number },
): Promise<InstallationEntry[]> {
  const { limit } = input;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < installationHistoryLimit.min || limit > installationHistoryLimit.max)) {
    throw invalidField('limit', `limit must be an integer from ${installationHistoryLimit.min} to ${installationHistoryLimit.max}`);
  }
  const thing = await requireThing(deps, principal, input.tuid);
  return deps.store.installations.list({ organizationId: thing.organizationId, tuid: thing.tuid, limit });
}

/** The entry that set the thing's current status (for a no-op, which writes none). */
async function newestEntry(deps: Pick<DomainDeps, 'store'>, thing: Thing): Promise<InstallationEntry> {
  const [entry] = await deps.store.installations.list({ organizationId: thing.organizationId, tuid: thing.tuid, limit: 1 });
  // The history is never empty; should a row be missing anyway, the thing's own status is still the truth.
  return entry ?? { status: thing.installationStatus, timestamp: thing.createdAt, responsible: 'unknown' };
}
