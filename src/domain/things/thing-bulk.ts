import { mayDo } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import { sendCommands, type SendCommandsDeps } from '../commands/send-commands.js';
import { AppError, fieldProblem, forbidden, validationFailed, type ErrorCode, type FieldProblem } from '../errors.js';
import { groupNotFound } from '../groups/group-service.js';
import { assignThingToGroup } from '../groups/group-membership.js';
import { requireGroupRef } from '../groups/group-id-rules.js';
import { setInstallationStatus } from '../installations/installation-service.js';
import { countThings, listThings, type ThingListInput } from './thing-queries.js';
import { checkLabels } from './thing-labels.js';
import { updateThing } from './thing-update.js';

/**
 * The actions one bulk request applies to many things (SPEC section 16), each through the single call's domain
 * function, so a thing in a bulk request follows exactly the rules it would alone. `set_labels` replaces each
 * thing's labels as PATCH /things/{tuid} does (and, like it, claims nothing: an unknown TUID is NOT_FOUND).
 */
export const bulkThingActions = ['set_group', 'set_installation_status', 'set_labels', 'send_commands'] as const;
export type BulkThingAction = (typeof bulkThingActions)[number];

/** How many things one bulk request may act on (named, or matched by its filter). */
export const bulkThingLimit = 500;

export interface BulkThingInput {
  /** The things, by TUID; or `filter`, the things list's filters (exactly one of the two). */
  tuids?: readonly string[];
  filter?: Omit<ThingListInput, 'limit' | 'cursor' | 'sort'>;
  action: string;
  /** The single calls' fields: `set_group`'s, `set_installation_status`'s, `set_labels`', `send_commands`'. */
  groupId?: unknown;
  installationStatus?: unknown;
  labels?: unknown;
  commands?: unknown;
}

/** What became of one thing: done, or the single call's error code and message. */
export interface BulkThingResult {
  tuid: string;
  ok: boolean;
  code?: ErrorCode;
  message?: string;
}

type BulkHandler = (deps: SendCommandsDeps, principal: Principal, tuid: string, input: BulkThingInput) => Promise<unknown>;

const bulkHandlers: Record<BulkThingAction, BulkHandler> = {
  set_group: (deps, principal, tuid, input) => assignThingToGroup(deps, principal, { tuid, groupId: input.groupId }),
  set_installation_status: (deps, principal, tuid, input) =>
    setInstallationStatus(deps, principal, { tuid, status: input.installationStatus }),
  set_labels: (deps, principal, tuid, input) => updateThing(deps, principal, { tuid, labels: input.labels }),
  send_commands: (deps, principal, tuid, input) => sendCommands(deps, principal, { tuid, commands: input.commands }),
};

/** The refusals that belong to one thing; anything else (a store outage) fails the whole request. */
const perThingCodes: ReadonlySet<ErrorCode> = new Set([
  'VALIDATION_FAILED',
  'NOT_FOUND',
  'INVALID_TRANSITION',
  'CONFLICT',
  'SERVICE_UNAVAILABLE',
]);

/**
 * Applies one action to many of the caller's things (REST `POST /things/bulk`, GraphQL `bulkUpdateThings`):
 * Managers and API clients only (FORBIDDEN for other roles). The things are named (`tuids`, 1 to 500, each once,
 * in the order first named) or matched by the things list's filters (at most 500, by TUID). The action's own
 * field is checked once up front (a missing one, or an unknown group, refuses the whole request before anything
 * changes); then each thing goes through the single call and gets its own result, so a bad TUID does not stop
 * the others. The one domain function every transport calls; each thing's change is recorded in the audit log by the single
 * call it goes through.
 */
export async function applyToThings(deps: SendCommandsDeps, principal: Principal, input: BulkThingInput): Promise<BulkThingResult[]> {
  if (principal.kind === 'user' && !mayDo(principal.role, 'administer')) throw forbidden('Only Managers may act on many things at once.');
  const problems: FieldProblem[] = [];
  const action = (bulkThingActions as readonly string[]).includes(input.action) ? (input.action as BulkThingAction) : undefined;
  if (!action) problems.push(fieldProblem('action', `must be one of ${bulkThingActions.join(', ')}`));
  if ((input.tuids === undefined) === (input.filter === undefined))
    problems.push(fieldProblem('tuids', 'or filter must be given, not both'));
  if (input.tuids !== undefined && (input.tuids.length < 1 || input.tuids.length > bulkThingLimit)) {
    problems.push(fieldProblem('tuids', `must name 1 to ${bulkThingLimit} things`));
  }
  let groupId: string | null | undefined;
  if (action === 'set_group') {
    try {
      groupId = requireGroupRef('groupId', input.groupId);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      problems.push(...error.errors);
    }
  }
  if (action === 'set_installation_status' && typeof input.installationStatus !== 'string') {
    problems.push(fieldProblem('installationStatus', 'is required for set_installation_status'));
  }
  if (action === 'set_labels') {
    if (input.labels === undefined) problems.push(fieldProblem('labels', 'are required for set_labels'));
    else problems.push(...checkLabels('labels', input.labels));
  }
  if (action === 'send_commands' && input.commands === undefined) problems.push(fieldProblem('commands', 'are required for send_commands'));
  if (problems.length > 0 || !action) throw validationFailed(problems);
  if (groupId && !(await deps.store.groups.get(principal.organizationId, groupId))) throw groupNotFound(groupId);

  const tuids = input.tuids ? [...new Set(input.tuids)] : await matchingTuids(deps, principal, input.filter!);
  const results: BulkThingResult[] = [];
  // One thing at a time: each single call is its own short transaction, so the writer is never held for the list.
  for (const tuid of tuids) {
    try {
      await bulkHandlers[action](deps, principal, tuid, input);
      results.push({ tuid, ok: true });
    } catch (error) {
      if (!(error instanceof AppError) || !perThingCodes.has(error.code)) throw error;
      results.push({ tuid, ok: false, code: error.code, message: error.message });
    }
  }
  return results;
}

/** The TUIDs a filter matches; VALIDATION_FAILED when it matches more than one request may act on. */
async function matchingTuids(
  deps: SendCommandsDeps,
  principal: Principal,
  filter: NonNullable<BulkThingInput['filter']>,
): Promise<string[]> {
  const { total } = await countThings(deps, principal, filter);
  if (total > bulkThingLimit) {
    throw validationFailed([
      fieldProblem('filter', `matches ${total} things; at most ${bulkThingLimit} may be acted on at once, narrow it`),
    ]);
  }
  const page = await listThings(deps, principal, { ...filter, limit: bulkThingLimit });
  return page.things.map((thing) => thing.tuid);
}
