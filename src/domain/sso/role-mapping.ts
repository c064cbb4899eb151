import type { RoleMapEntry } from '../../config/sso-config.js';
import type { Role } from '../identity/types.js';

/** Manager > Installer > Viewer: when several values of the role claim are mapped, the highest role wins. */
const rank: Record<Role, number> = { Viewer: 1, Installer: 2, Manager: 3 };

/** Whether `next` gives fewer rights than `previous` (a demotion ends the user's other sessions). */
export function isLowerRole(next: Role, previous: Role): boolean {
  return rank[next] < rank[previous];
}

/**
 * The role OIDC_ROLE_MAP gives a person, from the role claim's value (a string, or an array of strings as groups
 * claims are); `*` maps everyone. Undefined: no mapped role, and such a person is refused.
 */
export function roleFromClaim(claimValue: unknown, roleMap: readonly RoleMapEntry[]): Role | undefined {
  const values = new Set(
    (Array.isArray(claimValue) ? claimValue : [claimValue]).filter((value): value is string => typeof value === 'string'),
  );
  let best: Role | undefined;
  for (const entry of roleMap)
    if ((entry.value === '*' || values.has(entry.value)) && (best === undefined || rank[entry.role] > rank[best])) best = entry.role;
  return best;
}
