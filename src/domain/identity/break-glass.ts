import { validationFailed } from '../errors.js';
import type { User } from './types.js';
import type { IdentityDeps } from './identity-service.js';

/**
 * Marks a Manager as break-glass (SPEC section 15): with AUTH_PASSWORD_LOGIN=false, only such a Manager may still
 * sign in with a password, for when the identity provider is down or misconfigured. Only the CLI marks one (whoever
 * runs it holds the store already); a Manager demoted later keeps the mark but cannot use it (the role is checked at
 * sign-in).
 */
export async function markBreakGlass(deps: IdentityDeps, user: User): Promise<void> {
  if (user.role !== 'Manager') throw validationFailed([{ field: 'role', message: 'only a Manager may be break-glass' }]);
  await deps.store.users.setBreakGlass(user.organizationId, user.id, true);
}
