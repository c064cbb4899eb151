import type { DomainDeps } from '../domain-deps.js';
import { AppError, invalidField, type ErrorCode } from '../errors.js';
import { audited } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import type { Principal } from '../auth/principal.js';
import { checkNewTuid, checkTuid, requireThing, thingNotFound } from '../things/thing-access.js';
import type { Thing } from '../things/thing-types.js';
import { groupNotFound } from './group-service.js';
import { changesBetween, emitThingChanged } from '../things/thing-changes.js';
import { requireGroupRef } from './group-id-rules.js';

/**
 * Puts a thing in a group of the caller's organization; `unassigned` takes it out of its group. NOT_FOUND for an
 * unknown group, and for another organization's thing (as for an unknown TUID). A thing nobody owns is claimed
 * for the caller's organization (status `new`), as POST installations does. Returns the thing as it is now.
 */
export async function assignThingToGroup(
  deps: Pick<DomainDeps, 'store' | 'clock' | 'reservedTuids'> & Partial<Pick<DomainDeps, 'events'>>,
  principal: Principal,
  input: { tuid: string; groupId: unknown },
): Promise<Thing> {
  checkTuid(input.tuid);
  const groupId = requireGroupRef('groupId', input.groupId);
  // The store claims a thing nobody owns in the same statement; a reserved TUID is refused before it could.
  if (deps.reservedTuids.has(input.tuid) && !(await deps.store.things.get(input.tuid))) checkNewTuid(input.tuid, deps.reservedTuids);
  const { organizationId } = principal;
  const target = { type: 'thing', id: input.tuid };
  const { before, thing } = await audited(deps, principal, { organizationId, action: 'thing.assign_group', target }, async () => {
    const result = await deps.store.groups.assignThing({
      tuid: input.tuid,
      organizationId,
      groupId,
      at: deps.clock.now(),
      responsible: principal.responsible,
    });
    if (result.outcome === 'no-group') throw groupNotFound(groupId!);
    if (result.outcome === 'foreign') throw thingNotFound(input.tuid);
    return {
      result: { before: result.before, thing: result.thing },
      before: auditFields({ groupId: result.before?.groupId ?? null }),
      after: auditFields({ groupId: result.thing.groupId }),
    };
  });
  // Announced once committed, with its entry.
  emitThingChanged(deps.events, thing, changesBetween(before, thing), principal.responsible);
  return thing;
}

/** How many things one bulk assignment may name: a pasted list or a page of checked things, one request each. */
export const bulkAssignLimit = { min: 1, max: 500 } as const;

/** What became of one TUID of a bulk assignment: the thing as it is now, or why it was not assigned. */
export type BulkAssignOutcome = { tuid: string; thing: Thing; error?: undefined } | { tuid: string; thing?: undefined; error: AppError };

/**
 * Puts many things in one group, each exactly as assignThingToGroup would (the same rules: claims a thing nobody
 * owns, NOT_FOUND for another organization's). One request and one authorization for a whole selection; each
 * TUID gets its own outcome, so one bad TUID does not stop the others (a store outage still fails the whole
 * call). The group is checked once up front: NOT_FOUND for an unknown group, before anything is written. A TUID
 * named twice is assigned once, answered in the order first named.
 */
export async function assignThingsToGroup(
  deps: Pick<DomainDeps, 'store' | 'clock' | 'reservedTuids'> & Partial<Pick<DomainDeps, 'events'>>,
  principal: Principal,
  input: { groupId: unknown; tuids: readonly string[] },
): Promise<BulkAssignOutcome[]> {
  const groupId = requireGroupRef('groupId', input.groupId);
  const { min, max } = bulkAssignLimit;
  if (input.tuids.length < min || input.tuids.length > max) throw invalidField('tuids', `tuids must name ${min} to ${max} things`);
  if (groupId !== null && !(await deps.store.groups.get(principal.organizationId, groupId))) throw groupNotFound(groupId);
  const outcomes: BulkAssignOutcome[] = [];
  // One at a time: each assignment is its own short transaction, so the writer is never held for the whole list.
  for (const tuid of new Set(input.tuids)) {
    try {
      outcomes.push({ tuid, thing: await assignThingToGroup(deps, principal, { tuid, groupId: input.groupId }) });
    } catch (error) {
      if (!(error instanceof AppError) || !perThingCodes.has(error.code)) throw error;
      outcomes.push({ tuid, error });
    }
  }
  return outcomes;
}

/** The refusals that belong to one TUID (its shape, its owner, a group deleted meanwhile); anything else fails the call. */
const perThingCodes: ReadonlySet<ErrorCode> = new Set(['VALIDATION_FAILED', 'NOT_FOUND']);

/** The caller's thing, for its group (`groupId` null: in no group). NOT_FOUND for a thing the caller cannot see. */
export async function getThingGroup(deps: Pick<DomainDeps, 'store'>, principal: Principal, input: { tuid: string }): Promise<Thing> {
  return requireThing(deps, principal, input.tuid);
}

/**
 * The things of a group of the caller's organization, by TUID; `unassigned` lists the things in no group.
 * NOT_FOUND for an unknown group, VALIDATION_FAILED for an id no group can have.
 */
export async function listGroupThings(
  deps: Pick<DomainDeps, 'store'>,
  principal: Principal,
  input: { groupId: string },
): Promise<{ groupId: string | null; things: Thing[] }> {
  const groupId = requireGroupRef('groupId', input.groupId);
  const { organizationId } = principal;
  if (groupId !== null && !(await deps.store.groups.get(organizationId, groupId))) throw groupNotFound(groupId);
  const things = await deps.store.things.listInGroup(organizationId, groupId);
  // TUIDs are ASCII, so UTF-16 order is byte order: the same answer from both stores.
  things.sort((a, b) => (a.tuid < b.tuid ? -1 : a.tuid > b.tuid ? 1 : 0));
  return { groupId, things };
}
