import type { DomainDeps } from '../domain-deps.js';
import { DuplicateKeyError, conflict, invalidField, notFound, validationFailed, type FieldProblem } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { shownGroupId, unassignedGroupId } from './unassigned-group.js';
import { checkGroupDescription, checkGroupId, requireGroupId } from './group-id-rules.js';
import type { Group, GroupListing } from './group-types.js';
import { audited } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';

/** `limit` of the group list: 1 to 1000, 100 when absent. */
export const groupListLimit = { min: 1, max: 1000, default: 100 } as const;

/** The answer for a group the caller may not see: the same whether it does not exist or is another's. */
export function groupNotFound(groupId: string) {
  return notFound(`No group ${groupId}.`);
}

/** Creates a group in the caller's organization. VALIDATION_FAILED for a bad id or description, CONFLICT if it exists. */
export async function createGroup(
  deps: Pick<DomainDeps, 'store' | 'clock'>,
  principal: Principal,
  input: { groupId: unknown; description?: unknown },
): Promise<Group> {
  const problems = [checkGroupId('groupId', input.groupId), checkGroupDescription('description', input.description)].filter(
    (p): p is FieldProblem => p !== undefined,
  );
  if (problems.length > 0) throw validationFailed(problems);
  const groupId = input.groupId as string;
  const group: Group = {
    organizationId: principal.organizationId,
    groupId,
    description: (input.description as string | null | undefined) ?? null,
    createdAt: deps.clock.now(),
  };
  try {
    return await audited(
      deps,
      principal,
      { organizationId: group.organizationId, action: 'group.create', target: { type: 'group', id: groupId } },
      async () => ({
        result: await deps.store.groups.create(group),
        after: auditFields({ groupId, description: group.description }),
      }),
    );
  } catch (error) {
    if (error instanceof DuplicateKeyError) throw conflict(`Group ${groupId} already exists.`);
    throw error;
  }
}

/**
 * The caller's groups sorted by id (code point order, the same in both stores), each with its number of things,
 * and the pseudo-group `unassigned` (things in no group) in its sorted place. `q` keeps the groups whose id or
 * description contains it, ignoring case (the pseudo-group matches by its name). `limit` counts the pseudo-group
 * like any other element. Filtering happens here rather than in SQL so that case folding is Unicode's in both
 * stores; an organization has at most a few thousand groups.
 */
export async function listGroups(
  deps: Pick<DomainDeps, 'store'>,
  principal: Principal,
  input: { q?: string; limit?: number },
): Promise<GroupListing[]> {
  const limit = input.limit ?? groupListLimit.default;
  if (!Number.isInteger(limit) || limit < groupListLimit.min || limit > groupListLimit.max) {
    throw invalidField('limit', `limit must be an integer from ${groupListLimit.min} to ${groupListLimit.max}`);
  }
  const needle = input.q?.toLowerCase() ?? '';
  const matches = (text: string | null) => text !== null && text.toLowerCase().includes(needle);
  const { organizationId } = principal;
  const groups = (await deps.store.groups.listWithCounts(organizationId)).filter((g) => matches(g.groupId) || matches(g.description));
  if (matches(unassignedGroupId)) {
    groups.push({ groupId: null, description: null, thingCount: await deps.store.groups.countUngrouped(organizationId), createdAt: null });
  }
  return groups.sort((a, b) => compareCodePoints(shownGroupId(a.groupId), shownGroupId(b.groupId))).slice(0, limit);
}

/**
 * Renames a group; its things follow (stored messages keep the group they arrived with). NOT_FOUND for an unknown
 * group, CONFLICT when the new id is taken; renaming to the same id is a no-op.
 */
export async function renameGroup(
  deps: Pick<DomainDeps, 'store' | 'clock'>,
  principal: Principal,
  input: { groupId: string; newGroupId: unknown },
): Promise<{ groupId: string }> {
  const from = requireGroupId('groupId', input.groupId);
  const to = requireGroupId('newGroupId', input.newGroupId);
  const { organizationId } = principal;
  if (from === to) {
    if (!(await deps.store.groups.get(organizationId, from))) throw groupNotFound(from);
    return { groupId: to };
  }
  try {
    await audited(deps, principal, { organizationId, action: 'group.rename', target: { type: 'group', id: from } }, async () => {
      if (!(await deps.store.groups.rename(organizationId, from, to))) throw groupNotFound(from);
      return { result: undefined, before: auditFields({ groupId: from }), after: auditFields({ groupId: to }) };
    });
  } catch (error) {
    if (error instanceof DuplicateKeyError) throw conflict(`Group ${to} already exists.`);
    throw error;
  }
  return { groupId: to };
}

/** Deletes a group; its things are left in no group. NOT_FOUND for an unknown group. */
export async function deleteGroup(
  deps: Pick<DomainDeps, 'store' | 'clock'>,
  principal: Principal,
  input: { groupId: string },
): Promise<void> {
  const groupId = requireGroupId('groupId', input.groupId);
  const { organizationId } = principal;
  await audited(deps, principal, { organizationId, action: 'group.delete', target: { type: 'group', id: groupId } }, async () => {
    const before = await deps.store.groups.get(organizationId, groupId);
    if (!before || !(await deps.store.groups.delete(organizationId, groupId))) throw groupNotFound(groupId);
    return { result: undefined, before: auditFields({ groupId, description: before.description }) };
  });
}

/** Orders strings by Unicode code point, as SQLite's BINARY and PostgreSQL's "C" collations do (UTF-8 byte order). */
function compareCodePoints(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
