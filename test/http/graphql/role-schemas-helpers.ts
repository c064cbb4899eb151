/** What the role-schema tests share: the root fields SPEC section 4 gives each audience, the access table's and the schema's. */
import { makeExecutableSchema } from '@graphql-tools/schema';
import { mayCall, operationAccess, type Audience } from '../../../src/http/graphql/access.js';
import { allResolvers } from '../../../src/http/graphql/resolvers/all-resolvers.js';
import { typeDefs } from '../../../src/http/graphql/type-defs.js';
import type { Role } from '../../../src/domain/identity/types.js';

export type OperationType = keyof typeof operationAccess;
export const operationTypes: OperationType[] = ['Query', 'Mutation', 'Subscription'];
export const roles: Role[] = ['Viewer', 'Installer', 'Manager'];

// SPEC section 4, written out once by hand so that the table itself is checked against the SPEC.
const specViewerQueries = [
  'me',
  'organization',
  'thing',
  'things',
  'messages',
  'alerts',
  'groups',
  'group',
  'commands',
  'installations',
  'catalog',
];
/** Read-only queries beyond the SPEC's list ("add more freely"), for every signed-in role. */
// SPEC section 9: series and groupSeries for every role; section 10: fleetHealth for every role.
// SPEC section 16: alert periods and gateways for every role; section 12: the things export (the studio's button).
// SPEC section 13: alert rules for every role.
const readOnlyExtras = [
  'alertingThings',
  'alertCount',
  'series',
  'groupSeries',
  'fleetHealth',
  'alertPeriods',
  'gateways',
  'gateway',
  'thingsExport',
  'alertRules',
  'alertRulePreview',
];
/** SPEC section 16: every signed-in user changes their own password. */
const signedInMutations = ['logout', 'refreshToken', 'changePassword'];
// SPEC section 11: webhooks and their delivery log, for Managers only.
// SPEC section 13: notification channels (they hold addresses and chat URLs) and their delivery log, for Managers only.
const specManagerQueries = [
  'users',
  'apiClients',
  'mqttCredentials',
  'auditLog',
  'webhooks',
  'webhookDeliveries',
  'notificationChannels',
  'notificationChannelDeliveries',
];
// SPEC section 12: updateThing for Installers and Managers.
const specInstallerMutations = ['setInstallationStatus', 'assignThingToGroup', 'updateThing'];
/** Field-service mutations beyond the SPEC's list (issue 14: the studio assigns a selection of things at once). */
const installerMutationExtras = ['assignThingsToGroup', 'acknowledgeAlert', 'acknowledgeAlerts'];
const specManagerMutations = [
  'sendCommands',
  'createGroup',
  'deleteGroup',
  'createUser',
  'setUserRole',
  'deleteUser',
  'createApiClient',
  'revokeApiClient',
  'createMqttCredential',
  'revokeMqttCredential',
  // SPEC section 11.
  'createWebhook',
  'updateWebhook',
  'deleteWebhook',
  'rotateWebhookSecret',
  'replayWebhookDeliveries',
  // SPEC section 13.
  'createAlertRule',
  'updateAlertRule',
  'deleteAlertRule',
  'createNotificationChannel',
  'updateNotificationChannel',
  'deleteNotificationChannel',
  // SPEC section 13: built-in alerts notify too (PATCH /organization alert_channels).
  'setAlertChannels',
];
/** Manager mutations beyond the SPEC's list (testWebhook: SPEC 11's test event, for the studio). */
const managerMutationExtras = [
  'renameGroup',
  'setRetention',
  'resetUserPassword',
  'bulkUpdateThings',
  'importThings',
  'testWebhook',
  'testNotificationChannel',
];

/** What a platform operator's Managers see beyond a Manager's (issue 18's query; issue 32: no tenant's Manager). */
const platformOperatorQueries = ['deployment'];

export const sorted = (names: readonly string[]) => [...names].sort();
const managerMutations = sorted([
  ...signedInMutations,
  ...specInstallerMutations,
  ...installerMutationExtras,
  ...specManagerMutations,
  ...managerMutationExtras,
]);
export const specRoots: Record<Audience, Record<OperationType, string[]>> = {
  // SPEC section 15: ssoLogin exchanges single sign-on's one-time code, open without a token like login.
  anonymous: { Query: ['_empty'], Mutation: ['login', 'refreshToken', 'ssoLogin'], Subscription: [] },
  Viewer: {
    Query: sorted([...specViewerQueries, ...readOnlyExtras]),
    Mutation: sorted(signedInMutations),
    Subscription: sorted(['messages', 'alerts', 'commandStatus']),
  },
  Installer: {
    Query: sorted([...specViewerQueries, ...readOnlyExtras]),
    Mutation: sorted([...signedInMutations, ...specInstallerMutations, ...installerMutationExtras]),
    Subscription: sorted(['messages', 'alerts', 'commandStatus']),
  },
  Manager: {
    Query: sorted([...specViewerQueries, ...readOnlyExtras, ...specManagerQueries]),
    Mutation: managerMutations,
    Subscription: sorted(['messages', 'alerts', 'commandStatus']),
  },
  PlatformOperator: {
    Query: sorted([...specViewerQueries, ...readOnlyExtras, ...specManagerQueries, ...platformOperatorQueries]),
    Mutation: managerMutations,
    Subscription: sorted(['messages', 'alerts', 'commandStatus']),
  },
};

/** The root fields the access table gives an audience. */
export function tableRoots(audience: Audience): Record<OperationType, string[]> {
  const roots = {} as Record<OperationType, string[]>;
  for (const type of operationTypes)
    roots[type] = sorted(Object.keys(operationAccess[type]).filter((field) => mayCall(audience, type, field)));
  return roots;
}

export const fullSchema = makeExecutableSchema({ typeDefs, resolvers: allResolvers() });
export const fullRoots: Record<OperationType, string[]> = {
  Query: sorted(Object.keys(fullSchema.getQueryType()!.getFields())),
  Mutation: sorted(Object.keys(fullSchema.getMutationType()!.getFields())),
  Subscription: sorted(Object.keys(fullSchema.getSubscriptionType()!.getFields())),
};
