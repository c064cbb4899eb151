import { audited } from '../audit/audit-recorder.js';
import { endSessionsOfUser } from '../auth/session-ending.js';
import { mayDo } from '../auth/permissions.js';
import type { UserPrincipal } from '../auth/principal.js';
import { AppError, fieldProblem, forbidden, notFound, validationFailed, type FieldProblem } from '../errors.js';
import { checkPassword, minimumPasswordLength } from './identity-rules.js';
import type { IdentityDeps } from './identity-service.js';
import { ungatedPasswordHasher } from './password-hashing.js';
import { generateSecret } from './secrets.js';

/**
 * A signed-in user changes their own password (SPEC section 16): the current one must match (VALIDATION_FAILED
 * naming `currentPassword` otherwise), the new one follows the password rule and differs from it. Every other session of the
 * user ends at once; the one that asked goes on. The one domain function every transport calls; recorded in the
 * audit log (the password itself never).
 */
export async function changePassword(
  deps: IdentityDeps,
  user: UserPrincipal,
  input: { currentPassword: string; newPassword: string },
): Promise<void> {
  const problems: FieldProblem[] = [];
  if (checkPassword('newPassword', input.newPassword)) {
    problems.push(fieldProblem('newPassword', `must be ${minimumPasswordLength} to 1024 characters`));
  } else if (input.newPassword === input.currentPassword) {
    problems.push(fieldProblem('newPassword', 'must differ from the current password'));
  }
  if (problems.length > 0) throw validationFailed(problems);
  const passwords = deps.passwords ?? ungatedPasswordHasher;
  const stored = await deps.store.users.getWithPasswordHash(user.organizationId, user.userId);
  if (!stored) throw notFound('No such user.');
  if (!(await passwords.verify(stored.passwordHash, input.currentPassword))) {
    // A wrong field, not UNAUTHENTICATED: the caller's session is valid, and clients end a session on that code.
    throw validationFailed([fieldProblem('currentPassword', 'is wrong')], 'The current password is wrong.');
  }
  const hash = await passwords.hash(input.newPassword);
  const { organizationId, userId } = user;
  await audited(deps, user, { organizationId, action: 'user.change_password', target: { type: 'user', id: userId } }, async () => {
    await deps.store.users.updatePasswordHash(organizationId, userId, hash);
    return { result: undefined };
  });
  await endSessionsOfUser(deps, userId, 'password changed', user.sessionId);
}

/** Length in bytes of the randomness of a one-time password (base64url: 22 characters). */
const oneTimePasswordBytes = 16;

/**
 * A Manager resets a user's password (SPEC section 16): a new random password replaces the old one at once and
 * every session of the user ends. The password is answered here once, for the Manager to hand over, and stored
 * only as a hash. Resetting one's own password is refused (use changePassword, which asks for the current one).
 */
export async function resetUserPassword(
  deps: IdentityDeps,
  manager: UserPrincipal,
  input: { userId: string },
): Promise<{ userId: string; password: string }> {
  if (!mayDo(manager.role, 'administer')) throw forbidden('Only Managers may reset passwords.');
  if (input.userId === manager.userId)
    throw new AppError('CONFLICT', 'Change your own password with your current one, or ask another Manager.');
  const user = await deps.store.users.get(manager.organizationId, input.userId);
  if (!user) throw notFound(`No user ${input.userId}.`);
  const password = generateSecret(oneTimePasswordBytes);
  const passwords = deps.passwords ?? ungatedPasswordHasher;
  const hash = await passwords.hash(password);
  const { organizationId } = manager;
  await audited(deps, manager, { organizationId, action: 'user.reset_password', target: { type: 'user', id: input.userId } }, async () => {
    await deps.store.users.updatePasswordHash(organizationId, input.userId, hash);
    return { result: undefined };
  });
  await endSessionsOfUser(deps, input.userId, 'password reset');
  return { userId: input.userId, password };
}
