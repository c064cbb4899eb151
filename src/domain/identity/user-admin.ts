import { conflict, notFound, validationFailed } from '../errors.js';
import { audited } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import { checkRole, collectProblems, parseRole } from './identity-rules.js';
import type { IdentityDeps } from './identity-service.js';
import type { UserPrincipal } from '../auth/principal.js';
import { endSessionsOfUser } from '../auth/session-ending.js';
import type { User } from './types.js';

/**
 * Managers administer the users of their own organization. A Manager cannot demote or delete themselves, so an
 * organization is never locked out of its own administration by one click. A user whose role changes is signed
 * out everywhere: access tokens carry the role they were issued with, and a demoted Manager must not keep
 * Manager rights until their token expires.
 */
export async function setUserRole(deps: IdentityDeps, manager: UserPrincipal, input: { userId: string; role: string }): Promise<User> {
  const problems = collectProblems(checkRole('role', input.role));
  if (problems.length > 0) throw validationFailed(problems);
  const role = parseRole(input.role)!;
  if (input.userId === manager.userId && role !== 'Manager') throw conflict('You cannot change your own role; ask another Manager.');
  const { organizationId } = manager;
  const { before, user } = await audited(
    deps,
    manager,
    { organizationId, action: 'user.set_role', target: { type: 'user', id: input.userId } },
    async () => {
      const before = await deps.store.users.get(organizationId, input.userId);
      const updated = await deps.store.users.updateRole(organizationId, input.userId, role);
      if (!updated) throw notFound(`No user ${input.userId}.`);
      const user = (await deps.store.users.get(organizationId, input.userId))!;
      return { result: { before, user }, before: before && auditFields({ role: before.role }), after: auditFields({ role: user.role }) };
    },
  );
  if (before && before.role !== user.role) await endSessionsOfUser(deps, input.userId, 'role changed');
  return user;
}

/** Deletes a user of the Manager's organization and ends the user's sessions. */
export async function deleteUser(deps: IdentityDeps, manager: UserPrincipal, input: { userId: string }): Promise<void> {
  if (input.userId === manager.userId) throw conflict('You cannot delete yourself; ask another Manager.');
  const { organizationId } = manager;
  await audited(deps, manager, { organizationId, action: 'user.delete', target: { type: 'user', id: input.userId } }, async () => {
    const before = await deps.store.users.get(organizationId, input.userId);
    const deleted = await deps.store.users.delete(organizationId, input.userId);
    if (!deleted || !before) throw notFound(`No user ${input.userId}.`);
    return { result: undefined, before: auditFields({ email: before.email, role: before.role }) };
  });
  await endSessionsOfUser(deps, input.userId, 'user deleted');
}
