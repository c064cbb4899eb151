import { rolesWith } from '../../domain/auth/permissions.js';
import type { UserPrincipal } from '../../domain/auth/principal.js';
import type { Role } from '../../domain/identity/types.js';

/** Who may call an operation: `anonymous` is a caller without a valid access token. */
/**
 * `PlatformOperator` is a Manager of an organization PLATFORM_OPERATOR_ORGANIZATIONS names: everything a Manager may
 * do, and what concerns the platform itself rather than an organization (the deployment's instances).
 */
export type Audience = Role | 'anonymous' | 'PlatformOperator';

// Who holds which right is the domain's table (src/domain/auth/permissions.ts); this file names the operations.
const signedIn: Audience[] = rolesWith('read');
const fieldService: Audience[] = rolesWith('fieldService');
const manager: Audience[] = rolesWith('administer');
// The platform's own state is no organization's: a tenant's Manager does not see it (issue 32).
const platformOperator: Audience[] = ['PlatformOperator'];

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
    thingsExport: signedIn,
    messages: signedIn,
    series: signedIn,
    groupSeries: signedIn,
    alerts: signedIn,
    alertingThings: signedIn,
    alertCount: signedIn,
    alertPeriods: signedIn,
    gateways: signedIn,
    gateway: signedIn,
    fleetHealth: signedIn,
    groups: signedIn,
    group: signedIn,
    commands: signedIn,
    installations: signedIn,
    catalog: signedIn,
    users: manager,
    apiClients: manager,
    mqttCredentials: manager,
    auditLog: rolesWith('readAudit'),
    deployment: platformOperator,
    webhooks: manager,
    webhookDeliveries: manager,
    alertRules: signedIn,
    alertRulePreview: signedIn,
    notificationChannels: manager,
    notificationChannelDeliveries: manager,
  },
  Mutation: {
    login: ['anonymous'],
    ssoLogin: ['anonymous'],
    refreshToken: ['anonymous', ...signedIn],
    logout: signedIn,
    changePassword: signedIn,
    setInstallationStatus: fieldService,
    assignThingToGroup: fieldService,
    updateThing: fieldService,
    assignThingsToGroup: fieldService,
    acknowledgeAlert: fieldService,
    acknowledgeAlerts: fieldService,
    sendCommands: manager,
    importThings: manager,
    createGroup: manager,
    renameGroup: manager,
    deleteGroup: manager,
    createUser: manager,
    setUserRole: manager,
    deleteUser: manager,
    resetUserPassword: manager,
    setRetention: manager,
    bulkUpdateThings: manager,
    createApiClient: manager,
    revokeApiClient: manager,
    createMqttCredential: manager,
    revokeMqttCredential: manager,
    createWebhook: manager,
    updateWebhook: manager,
    deleteWebhook: manager,
    rotateWebhookSecret: manager,
    replayWebhookDeliveries: manager,
    testWebhook: manager,
    createAlertRule: manager,
    updateAlertRule: manager,
    deleteAlertRule: manager,
    createNotificationChannel: manager,
    updateNotificationChannel: manager,
    deleteNotificationChannel: manager,
    testNotificationChannel: manager,
    setAlertChannels: manager,
  },
  Subscription: {
    messages: signedIn,
    alerts: signedIn,
    commandStatus: signedIn,
  },
};

export const audiences: readonly Audience[] = ['anonymous', 'Viewer', 'Installer', 'Manager', 'PlatformOperator'];

export function mayCall(audience: Audience, operationType: keyof typeof operationAccess, field: string): boolean {
  const allowed = operationAccess[operationType][field] ?? [];
  return allowed.includes(audience) || (audience === 'PlatformOperator' && allowed.includes('Manager'));
}

/** Whose schema a caller gets: anonymous, its role, or PlatformOperator for a Manager of an operator organization. */
export function audienceOf(principal: UserPrincipal | undefined, operatorOrganizations: readonly string[]): Audience {
  if (!principal) return 'anonymous';
  return principal.role === 'Manager' && operatorOrganizations.includes(principal.organizationId) ? 'PlatformOperator' : principal.role;
}
