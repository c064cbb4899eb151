import { Kind, parse, type DocumentNode } from 'graphql';
import { recordAudit, type AuditDeps } from '../../domain/audit/audit-recorder.js';
import type { UserPrincipal } from '../../domain/auth/principal.js';
import { operationAccess } from './access.js';

/**
 * Records, as `denied`, each root field of a mutation that the caller's role may not call (access.ts): such an
 * operation never reaches a resolver, since the role's schema does not have the field. The action is
 * `graphql.<field>`; the target the thing or group its arguments name, where they name one as a literal.
 */
export async function recordDeniedMutations(
  deps: AuditDeps,
  principal: UserPrincipal,
  query: string,
  operationName: string | null | undefined,
  variables?: Record<string, unknown> | null,
): Promise<void> {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch {
    return;
  }
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION || definition.operation !== 'mutation') continue;
    if (operationName && definition.name?.value !== operationName) continue;
    for (const selection of definition.selectionSet.selections) {
      if (selection.kind !== Kind.FIELD) continue;
      const field = selection.name.value;
      const allowed = operationAccess.Mutation[field];
      if (!allowed || allowed.includes(principal.role)) continue;
      let target: { type: string; id: string | null } = { type: 'operation', id: field };
      for (const argument of selection.arguments ?? []) {
        const value =
          argument.value.kind === Kind.STRING
            ? argument.value.value
            : argument.value.kind === Kind.VARIABLE
              ? variables?.[argument.value.name.value]
              : undefined;
        if (typeof value !== 'string') continue;
        if (argument.name.value === 'tuid') target = { type: 'thing', id: value };
        else if (argument.name.value === 'groupId' && target.type === 'operation') target = { type: 'group', id: value };
      }
      await recordAudit(deps, principal, {
        organizationId: principal.organizationId,
        action: `graphql.${field}`,
        target,
        outcome: 'denied',
      });
    }
  }
}
