import { rolesWith } from '../../domain/auth/permissions.js';
import type { Role } from '../../domain/identity/types.js';

/** Who may call an operation: `anonymous` is a caller without a valid access token. */
export type Audience = Role | 'anonymous';

// Who holds which right is the domain's table (src/domain/auth/permissions.ts); this file names the operations.
const signedIn: Audience[] = rolesWith('read');
const fieldService: Audience[] = rolesWith('fieldService');
const manager: Audience[] = rolesWith('administer');

/**
 * The one table of GraphQL access (SPEC section 4). Each role's schema is the full schema cut down to the
 * operations listed for it here, so an operation outside a role's schema fails validation as an unknown field,
 * and introspection shows each caller only its own schema.
 */
export const operationAccess: Record<'Query' | 'Mutation' | 'Subscription', Record<string, readonly Audience[]>> = {
  Query: {
    _empty: ['anonymous'],
    me: signedIn,
    organization: signedIn,
    thing: signedIn,
    things: signedIn,
    messages: signedIn,
    series: signedIn,
    groupSeries: signedIn,
    alerts: signedIn,
    alertingThings: signedIn,
    alertCount: signedIn,
    fleetHealth: signedIn,
    groups: signedIn,
    group: signedIn,
    commands: signedIn,
    installations: signedIn,
    catalog: signedIn,
    users: manager,
    apiClients: manager,
    mqttCredentials: manager,
    deployment: manager,
  },
  Mutation: {
    login: ['anonymous'],
    refreshToken: ['anonymous', ...signedIn],
    logout: signedIn,
    setInstallationStatus: fieldService,
    assignThingToGroup: fieldService,
    assignThingsToGroup: fieldService,
    sendCommands: manager,
    createGroup: manager,
    renameGroup: manager,
    deleteGroup: manager,
    createUser: manager,
    setUserRole: manager,
    deleteUser: manager,
    setRetention: manager,
    createApiClient: manager,
    revokeApiClient: manager,
    createMqttCredential: manager,
    revokeMqttCredential: manager,
  },
  Subscription: {
    messages: signedIn,
    alerts: signedIn,
    commandStatus: signedIn,
  },
};

export const audiences: readonly Audience[] = ['anonymous', 'Viewer', 'Installer', 'Manager'];

export function mayCall(audience: Audience, operationType: keyof typeof operationAccess, field: string): boolean {
  return operationAccess[operationType][field]?.includes(audience) ?? false;
}
