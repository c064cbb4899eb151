/**
 * The full GraphQL schema (SPEC section 4). Each role sees a part of it (access.ts); the fixed operations of the
 * SPEC table keep exactly these names and shapes. Descriptions end up in introspection, so they are written for
 * the people who read it.
 */
export const typeDefs = /* GraphQL */ `
  "Any JSON value: device messages and commands, whose fields depend on the message id (see the catalog)."
  scalar JSON

  enum Role { MANAGER INSTALLER VIEWER }
  enum MqttCredentialKind { GATEWAY INTEGRATION }

  input LoginInput { email: String! organizationName: String! password: String! }
  input RefreshTokenInput { organizationId: String! refreshToken: String! }

  type LoginResult { accessToken: String! expiresIn: Int! refreshExpiresIn: Int! refreshToken: String! organizationId: String! }
  type RefreshTokenResult { accessToken: String! expiresIn: Int! refreshExpiresIn: Int! refreshToken: String! }
  type LogoutResult { success: Boolean! }

  type User { id: ID! email: String! role: Role! organizationId: String! }
  type Organization { id: ID! name: String! }

  type Location { lat: Float! lon: Float! }
  "A thing's summary: each value from the newest message (by tsmTs) that carries it."
  type Thing {
    tuid: ID!
    "Newest 1110 batl, rounded to a whole percent."
    batteryLevel: Int
    "tsmTs (Unix seconds) of the newest message."
    timestamp: Float
    location: Location
    gatewayTuid: String
    "Newest 1100 swVersion; 'unknown' until one arrives."
    version: String!
    installationStatus: String!
    "'unassigned' for a thing in no group."
    groupId: String!
  }
  type ThingEdge { cursor: String! node: Thing! }
  type PageInfo { hasNextPage: Boolean! endCursor: String }
  type ThingConnection { edges: [ThingEdge!]! nodes: [Thing!]! pageInfo: PageInfo! }

  type Group { groupId: String! description: String thingCount: Int! "Unix seconds; null for the unassigned pseudo-group." createdAt: Int }
  type GroupThings { groupId: String! tuids: [ID!]! things: [Thing!]! }

  type AlertPeriod { "Local date-time in ALERT_TIMEZONE." from: String! "Null while active." to: String }
  type AlertRecord { tuid: ID! alertType: String! alerts: [AlertPeriod!]! }
  type AlertEvent { tuid: ID! alertType: String! "opened or closed" state: String! from: String! to: String }

  type InstallationResult { tuid: ID! installationStatus: String! groupId: String! timestamp: Int! responsible: String! }
  type InstallationHistoryEntry { installationStatus: String! timestamp: Int! responsible: String! }

  type SendCommandsResult { tuid: ID! timestamp: Int! responsible: String! commands: [JSON!]! }
  type CommandRecord { tuid: ID! timestamp: Int! responsible: String! command: JSON! commands: [JSON!]! }

  type ApiClientCredentials { clientId: String! clientSecret: String! }
  type ApiClient { clientId: String! name: String! createdAt: Int! revoked: Boolean! }
  type MqttCredentialSecret { username: String! password: String! kind: MqttCredentialKind! }
  type MqttCredential { username: String! kind: MqttCredentialKind! createdAt: Int! revoked: Boolean! }

  type Query {
    "Placeholder: GraphQL needs a query type, and a caller who is not signed in may only sign in."
    _empty: Boolean
    me: User!
    organization: Organization!
    thing(tuid: ID!): Thing
    things(first: Int, after: String, groupId: String, installationStatus: String, q: String): ThingConnection!
    messages(tuid: ID!, messageIds: [Int!], eventIds: [Int!], from: Int, to: Int, limit: Int!): [JSON!]!
    alerts(tuid: ID!, from: Int, to: Int): [AlertRecord!]!
    alertingThings: [ID!]!
    alertCount: Int!
    groups(q: String, limit: Int): [Group!]!
    group(groupId: String!): GroupThings
    commands(tuid: ID!, limit: Int): [CommandRecord!]!
    installations(tuid: ID!, limit: Int): [InstallationHistoryEntry!]!
    "The message catalog: every id with its fields, value sets and events."
    catalog: [JSON!]!
    users: [User!]!
    apiClients: [ApiClient!]!
    mqttCredentials: [MqttCredential!]!
  }

  type Mutation {
    login(loginInput: LoginInput!): LoginResult!
    refreshToken(refreshTokenInput: RefreshTokenInput!): RefreshTokenResult!
    logout: LogoutResult!
    setInstallationStatus(tuid: ID!, status: String!): InstallationResult!
    assignThingToGroup(tuid: ID!, groupId: String!): Thing!
    sendCommands(tuid: ID!, commands: [JSON!]!): SendCommandsResult!
    createGroup(groupId: String!, description: String): Group!
    renameGroup(groupId: String!, newGroupId: String!): Group!
    deleteGroup(groupId: String!): Boolean!
    createUser(email: String!, password: String!, role: Role!): User!
    setUserRole(userId: ID!, role: Role!): User!
    deleteUser(userId: ID!): Boolean!
    createApiClient(name: String!): ApiClientCredentials!
    revokeApiClient(clientId: String!): Boolean!
    createMqttCredential(kind: MqttCredentialKind!, username: String): MqttCredentialSecret!
    revokeMqttCredential(username: String!): Boolean!
  }

  type Subscription {
    "Live stored uplinks of the organization, optionally of one thing or one group."
    messages(tuid: ID, groupId: String): JSON!
    "Alert periods opening and closing in the organization."
    alerts: AlertEvent!
  }
`;
