import { audited } from '../audit/audit-recorder.js';
import { auditFields, type AuditFields } from '../audit/audit-types.js';
import type { DomainDeps } from '../domain-deps.js';
import { validationFailed, type FieldProblem } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { checkTuid, thingNotFound } from './thing-access.js';
import { changesBetween, emitThingChanged } from './thing-changes.js';
import { checkLabels, checkThingName, sortedLabels, type Labels } from './thing-labels.js';
import type { Thing } from './thing-types.js';

/**
 * Sets a thing's name and labels (SPEC section 12; REST PATCH /things/{tuid}, GraphQL updateThing): `name` a
 * string or null (clears it), `labels` replaces all labels; a field left undefined stays as it is. Every problem is
 * named at once (VALIDATION_FAILED). NOT_FOUND for a thing the caller cannot see: unlike the installation and group
 * calls, this one claims nothing. Emits `thingChanged` when anything changed. Returns the thing as it is now.
 */
export async function updateThing(
  deps: Pick<DomainDeps, 'store' | 'events'>,
  principal: Principal,
  input: { tuid: string; name?: unknown; labels?: unknown },
): Promise<Thing> {
  checkTuid(input.tuid);
  const problems: FieldProblem[] = [];
  if (input.name !== undefined) {
    const problem = checkThingName('name', input.name);
    if (problem) problems.push(problem);
  }
  if (input.labels !== undefined) problems.push(...checkLabels('labels', input.labels));
  if (problems.length > 0) throw validationFailed(problems);
  const { organizationId } = principal;
  const target = { type: 'thing', id: input.tuid };
  const updated = await audited(deps, principal, { organizationId, action: 'thing.update', target }, async () => {
    const updated = await deps.store.things.updateNameAndLabels({
      organizationId,
      tuid: input.tuid,
      name: input.name as string | null | undefined,
      labels: input.labels === undefined ? undefined : sortedLabels(input.labels as Labels),
    });
    if (!updated) throw thingNotFound(input.tuid);
    return { result: updated, before: auditedNaming(updated.before), after: auditedNaming(updated.after) };
  });
  const { name, labels } = changesBetween(updated.before, updated.after);
  emitThingChanged(deps.events, updated.after, { ...(name ? { name } : {}), ...(labels ? { labels } : {}) }, principal.responsible);
  return updated.after;
}

/** What the audit log keeps of a thing's naming: the name, and the labels as their JSON. */
function auditedNaming(thing: Thing): AuditFields {
  return auditFields({ name: thing.name, labels: JSON.stringify(thing.labels) });
}
