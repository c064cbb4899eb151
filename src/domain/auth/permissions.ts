import { roles, type Role } from '../identity/types.js';

/**
 * What a signed-in user may do, by role (SPEC section 4): the one table of roles and their rights. Every
 * transport that serves users cuts its operations from it (GraphQL builds one schema per role from it,
 * `src/http/graphql/access.ts`). REST API clients are not users: they have full access to their organization's
 * things (SPEC section 2).
 */
export const permissions = ['read', 'fieldService', 'administer', 'readAudit'] as const;
export type Permission = (typeof permissions)[number];

export const rolePermissions: Readonly<Record<Role, readonly Permission[]>> = {
  /** Reads everything of the organization. */
  Viewer: ['read'],
  /** Also sets installation statuses and assigns things to groups. */
  Installer: ['read', 'fieldService'],
  /** Also sends commands, manages groups, users, API clients and MQTT credentials. */
  Manager: ['read', 'fieldService', 'administer', 'readAudit'],
  // readAudit: the organization's audit log (SPEC 14); API clients read it over REST too.
};

export function mayDo(role: Role, permission: Permission): boolean {
  return rolePermissions[role].includes(permission);
}

/** The roles holding a permission, fewest rights first. */
export function rolesWith(permission: Permission): Role[] {
  return [...roles].reverse().filter((role) => mayDo(role, permission));
}
