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
const readOnlyExtras = ['alertingThings', 'alertCount', 'series', 'groupSeries', 'fleetHealth'];
const specManagerQueries = ['users', 'apiClients', 'mqttCredentials'];
const specInstallerMutations = ['setInstallationStatus', 'assignThingToGroup'];
/** Field-service mutations beyond the SPEC's list (issue 14: the studio assigns a selection of things at once). */
const installerMutationExtras = ['assignThingsToGroup'];
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
];
/** Manager mutations beyond the SPEC's list. */
const managerMutationExtras = ['renameGroup', 'setRetention'];
/** Manager queries beyond the SPEC's list (issue 18: the deployment's instances). */
const managerQueryExtras = ['deployment'];

export const sorted = (names: readonly string[]) => [...names].sort();
export const specRoots: Record<Audience, Record<OperationType, string[]>> = {
  anonymous: { Query: ['_empty'], Mutation: ['login', 'refreshToken'], Subscription: [] },
  Viewer: {
    Query: sorted([...specViewerQueries, ...readOnlyExtras]),
    Mutation: sorted(['logout', 'refreshToken']),
    Subscription: sorted(['messages', 'alerts', 'commandStatus']),
  },
  Installer: {
    Query: sorted([...specViewerQueries, ...readOnlyExtras]),
    Mutation: sorted(['logout', 'refreshToken', ...specInstallerMutations, ...installerMutationExtras]),
    Subscription: sorted(['messages', 'alerts', 'commandStatus']),
  },
  Manager: {
    Query: sorted([...specViewerQueries, ...readOnlyExtras, ...specManagerQueries, ...managerQueryExtras]),
    Mutation: sorted([
      'logout',
      'refreshToken',
      ...specInstallerMutations,
      ...installerMutationExtras,
      ...specManagerMutations,
      ...managerMutationExtras,
    ]),
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
