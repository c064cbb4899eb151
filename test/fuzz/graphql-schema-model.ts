/** The fuzzer's model of the GraphQL schema: its object types with their fields, and every root operation with its arguments. */

/** The object types of type-defs.ts and their fields (null: a scalar or enum; a name: that object type). */
export const objectTypes: Record<string, Record<string, string | null>> = {
  User: { id: null, email: null, role: null, organizationId: null },
  Organization: { id: null, name: null, retention: 'Retention' },
  Retention: { messageRetentionDays: null, rollupRetentionDays: null, messageRetentionOverride: null, rollupRetentionOverride: null },
  Location: { lat: null, lon: null },
  Thing: {
    tuid: null,
    batteryLevel: null,
    timestamp: null,
    location: 'Location',
    gatewayTuid: null,
    version: null,
    installationStatus: null,
    groupId: null,
  },
  ThingEdge: { cursor: null, node: 'Thing' },
  PageInfo: { hasNextPage: null, endCursor: null },
  ThingConnection: { edges: 'ThingEdge', nodes: 'Thing', pageInfo: 'PageInfo' },
  Group: { groupId: null, description: null, thingCount: null, createdAt: null },
  GroupThings: { groupId: null, tuids: null, things: 'Thing' },
  AssignmentProblem: { code: null, message: null },
  GroupAssignment: { tuid: null, thing: 'Thing', problem: 'AssignmentProblem' },
  AlertPeriod: { from: null, to: null },
  AlertRecord: { tuid: null, alertType: null, alerts: 'AlertPeriod' },
  StatusCounts: { total: null, installed: null },
  ActiveAlert: { tuid: null, type: null, since: null, sinceLocal: null },
  FleetAlerting: { thingCount: null, alerts: 'ActiveAlert' },
  GroupHealth: { groupId: null, installed: null, onlineShare: null, uptime: null },
  FleetHealth: { generatedAt: null, statusCounts: 'StatusCounts', alerting: 'FleetAlerting', groups: 'GroupHealth' },
  InstallationResult: { tuid: null, installationStatus: null, groupId: null, timestamp: null, responsible: null },
  InstallationHistoryEntry: { installationStatus: null, timestamp: null, responsible: null },
  SendCommandsResult: { tuid: null, timestamp: null, responsible: null, commands: null },
  CommandRecord: { tuid: null, timestamp: null, responsible: null, command: null, commands: null },
  ApiClientCredentials: { clientId: null, clientSecret: null },
  ApiClient: { clientId: null, name: null, createdAt: null, revoked: null },
  MqttCredentialSecret: { username: null, password: null, kind: null },
  MqttCredential: { username: null, kind: null, createdAt: null, revoked: null },
  PlatformInstance: { id: null, version: null, startedAt: null, live: null, consumerSlots: null, leases: null },
  Deployment: { registered: null, instances: 'PlatformInstance' },
  LoginResult: { accessToken: null, expiresIn: null, refreshExpiresIn: null, refreshToken: null, organizationId: null },
  RefreshTokenResult: { accessToken: null, expiresIn: null, refreshExpiresIn: null, refreshToken: null },
};

export type ArgType =
  | 'ID!'
  | 'ID'
  | 'String'
  | 'String!'
  | 'Int'
  | 'Int!'
  | '[Int!]'
  | '[JSON!]!'
  | '[ID!]!'
  | 'Role!'
  | 'MqttCredentialKind!'
  | 'LoginInput!'
  | 'RefreshTokenInput!';

export interface Operation {
  kind: 'query' | 'mutation';
  name: string;
  args: Record<string, ArgType>;
  /** An object type of `objectTypes`, or null for a scalar result. */
  returns: string | null;
  weight?: number;
}

/** Every query and mutation of type-defs.ts but `logout` (it would end the fuzzer's own sessions). */
export const operations: readonly Operation[] = [
  { kind: 'query', name: '_empty', args: {}, returns: null },
  { kind: 'query', name: 'me', args: {}, returns: 'User' },
  { kind: 'query', name: 'organization', args: {}, returns: 'Organization' },
  { kind: 'query', name: 'thing', args: { tuid: 'ID!' }, returns: 'Thing', weight: 3 },
  {
    kind: 'query',
    name: 'things',
    args: { first: 'Int', after: 'String', groupId: 'String', installationStatus: 'String', q: 'String' },
    returns: 'ThingConnection',
    weight: 3,
  },
  {
    kind: 'query',
    name: 'messages',
    args: { tuid: 'ID!', messageIds: '[Int!]', eventIds: '[Int!]', from: 'Int', to: 'Int', limit: 'Int!' },
    returns: null,
    weight: 3,
  },
  { kind: 'query', name: 'alerts', args: { tuid: 'ID!', from: 'Int', to: 'Int' }, returns: 'AlertRecord', weight: 2 },
  { kind: 'query', name: 'alertingThings', args: {}, returns: null },
  { kind: 'query', name: 'alertCount', args: {}, returns: null },
  { kind: 'query', name: 'fleetHealth', args: { days: 'Int', limit: 'Int', batteryBelow: 'Int' }, returns: 'FleetHealth' },
  { kind: 'query', name: 'groups', args: { q: 'String', limit: 'Int' }, returns: 'Group', weight: 2 },
  { kind: 'query', name: 'group', args: { groupId: 'String!' }, returns: 'GroupThings', weight: 2 },
  { kind: 'query', name: 'commands', args: { tuid: 'ID!', limit: 'Int' }, returns: 'CommandRecord', weight: 2 },
  { kind: 'query', name: 'installations', args: { tuid: 'ID!', limit: 'Int' }, returns: 'InstallationHistoryEntry', weight: 2 },
  { kind: 'query', name: 'catalog', args: {}, returns: null },
  { kind: 'query', name: 'users', args: {}, returns: 'User' },
  { kind: 'query', name: 'apiClients', args: {}, returns: 'ApiClient' },
  { kind: 'query', name: 'mqttCredentials', args: {}, returns: 'MqttCredential' },
  { kind: 'query', name: 'deployment', args: {}, returns: 'Deployment' },
  { kind: 'mutation', name: 'login', args: { loginInput: 'LoginInput!' }, returns: 'LoginResult' },
  { kind: 'mutation', name: 'refreshToken', args: { refreshTokenInput: 'RefreshTokenInput!' }, returns: 'RefreshTokenResult' },
  { kind: 'mutation', name: 'setInstallationStatus', args: { tuid: 'ID!', status: 'String!' }, returns: 'InstallationResult', weight: 3 },
  { kind: 'mutation', name: 'assignThingToGroup', args: { tuid: 'ID!', groupId: 'String!' }, returns: 'Thing', weight: 3 },
  { kind: 'mutation', name: 'assignThingsToGroup', args: { groupId: 'String!', tuids: '[ID!]!' }, returns: 'GroupAssignment', weight: 2 },
  { kind: 'mutation', name: 'sendCommands', args: { tuid: 'ID!', commands: '[JSON!]!' }, returns: 'SendCommandsResult', weight: 4 },
  { kind: 'mutation', name: 'createGroup', args: { groupId: 'String!', description: 'String' }, returns: 'Group', weight: 3 },
  { kind: 'mutation', name: 'renameGroup', args: { groupId: 'String!', newGroupId: 'String!' }, returns: 'Group', weight: 2 },
  { kind: 'mutation', name: 'deleteGroup', args: { groupId: 'String!' }, returns: null, weight: 2 },
  { kind: 'mutation', name: 'createUser', args: { email: 'String!', password: 'String!', role: 'Role!' }, returns: 'User', weight: 2 },
  { kind: 'mutation', name: 'setUserRole', args: { userId: 'ID!', role: 'Role!' }, returns: 'User' },
  { kind: 'mutation', name: 'deleteUser', args: { userId: 'ID!' }, returns: null },
  { kind: 'mutation', name: 'createApiClient', args: { name: 'String!' }, returns: 'ApiClientCredentials' },
  { kind: 'mutation', name: 'revokeApiClient', args: { clientId: 'String!' }, returns: null },
  {
    kind: 'mutation',
    name: 'createMqttCredential',
    args: { kind: 'MqttCredentialKind!', username: 'String' },
    returns: 'MqttCredentialSecret',
  },
  { kind: 'mutation', name: 'revokeMqttCredential', args: { username: 'String!' }, returns: null },
  { kind: 'mutation', name: 'setRetention', args: { messageRetentionDays: 'Int', rollupRetentionDays: 'Int' }, returns: 'Retention' },
];
