import { conflict, notFound, validationFailed } from '../errors.js';
import { checkRole, collectProblems, parseRole } from './identity-rules.js';
import type { IdentityDeps } from './identity-service.js';
import type { UserPrincipal } from './principal.js';
import type { User } from './types.js';

/**
 * Managers administer the users of their own organization. A Manager cannot demote or delete themselves, so an
 * organization is never locked out of its own administration by one click.
 */
export async function setUserRole(deps: IdentityDeps, manager: UserPrincipal, input: { userId: string; role: string }): Promise<User> {
  const problems = collectProblems(checkRole('role', input.role));
  if (problems.length > 0) throw validationFailed(problems);
  const role = parseRole(input.role)!;
  if (input.userId === manager.userId && role !== 'Manager') throw conflict('You cannot change your own role; ask another Manager.');
  const updated = await deps.store.users.updateRole(manager.organizationId, input.userId, role);
  if (!updated) throw notFound(`No user ${input.userId}.`);
  return (await deps.store.users.get(manager.organizationId, input.userId))!;
}

/** Deletes a user of the Manager's organization; the caller ends the user's sessions. */
export async function deleteUser(deps: IdentityDeps, manager: UserPrincipal, input: { userId: string }): Promise<void> {
  if (input.userId === manager.userId) throw conflict('You cannot delete yourself; ask another Manager.');
  const deleted = await deps.store.users.delete(manager.organizationId, input.userId);
  if (!deleted) throw notFound(`No user ${input.userId}.`);
}
