// The operations: every query, mutation and subscription (access.ts cuts them per role).
// Part of typeDefs (../type-defs.ts), which joins the parts in this order.
export const operationsSdl = /* GraphQL */ `
  "Reads. Every one answers for the caller's organization only."
  type Query {
    "Placeholder: GraphQL needs a query type, and a caller who is not signed in may only sign in."
    _empty: Boolean
    "The signed-in user."
    me: User!
    "The caller's organization."
    organization: Organization!
    "One thing's summary; null for a thing the caller cannot see."
    thing("The thing's TUID." tuid: ID!): Thing
    "The organization's things, filtered and sorted (default by TUID), a page at a time, with their total."
    things(
      "Things per page, 1 to 1000 (default 100)."
      first: Int
      "endCursor of the previous page."
      after: String
      "Only things of this group ('unassigned': things in no group)."
      groupId: String
      "Only things with this status: new, installed, uninstalled, quarantine or retired."
      installationStatus: String
      "Only things whose TUID contains this text, ignoring case."
      q: String
      "true: only things with an active alert (any type); false: only things without one."
      alerting: Boolean
      "Only things last heard through this gateway."
      gatewayTuid: String
      "Only things whose battery level is below this percent (1 to 100)."
      batteryBelow: Int
      "Only things not heard for at least this many seconds, or never heard."
      silentForS: Int
      "tuid, name, last_seen, battery_level or installation_status, optionally with :asc or :desc (default tuid:asc); things without a name sort last either way."
      sort: String
      "Only things with every one of these labels (at most 10)."
      labels: [LabelInput!]
    ): ThingConnection!
    "The things of these filters as an import file, by TUID, in the columns GET /things/export writes; at most 10,000 things (GET /things/export streams any number)."
    thingsExport(
      "CSV (the default) or NDJSON."
      format: ImportFormat
      "The things list's filters."
      filter: ThingFilterInput
      "Only things with every one of these labels (at most 10)."
      labels: [LabelInput!]
    ): String!
    "A thing's stored messages, newest first, exactly as REST returns them."
    messages(
      "The thing's TUID."
      tuid: ID!
      "Only these message ids (tsmId)."
      messageIds: [Int!]
      "Only these event codes (tsmEv)."
      eventIds: [Int!]
      "Only messages with tsmTs at or after this time, Unix seconds."
      from: Int
      "Only messages with tsmTs at or before this time, Unix seconds."
      to: Int
      "At most this many messages, 1 to 10000."
      limit: Int!
    ): [JSON!]!
    "A thing's alert periods overlapping a window, one record per alert type."
    alerts(
      "The thing's TUID."
      tuid: ID!
      "Start of the window, Unix seconds (default: 7 days before to)."
      from: Int
      "End of the window, Unix seconds (default: now)."
      to: Int
    ): [AlertRecord!]!
    "TUIDs of the organization's things with an active alert."
    alertingThings: [ID!]!
    "Active alerts in the organization."
    alertCount: Int!
    "The fleet at a glance: things per status, alerting things, silent gateways, low batteries, a health line per group."
    fleetHealth(
      "The uptime window: the last this many days, 1 to 90 (default 30)."
      days: Int
      "At most this many entries in each list, 1 to 1000 (default 50)."
      limit: Int
      "The low battery threshold in percent, 1 to 100 (default BATTERY_LOW_PERCENT)."
      batteryBelow: Int
    ): FleetHealth!
    "The organization's groups by id, with the pseudo-group 'unassigned'."
    groups(
      "Only groups whose id or description contains this text, ignoring case."
      q: String
      "At most this many groups, 1 to 1000 (default 100)."
      limit: Int
    ): [Group!]!
    "A thing's time series of one numeric field (NOT_FOUND for a thing the caller cannot see)."
    series(
      "The thing's TUID."
      tuid: ID!
      "The message id (tsmId) whose field is read."
      tsmId: Int!
      "The numeric field; members of nested objects by their dotted path (position.lat)."
      field: String!
      "Start of the range (tsmTs), Unix seconds, inclusive."
      from: Int!
      "End of the range (tsmTs), Unix seconds, inclusive."
      to: Int!
      "raw, 1h, 1d (UTC buckets) or auto (default): the finest giving at most maxPoints."
      bucket: String
      "At most this many points, 1 to 10000 (default 1000); an explicit bucket giving more is refused."
      maxPoints: Int
    ): Series!
    "A group's time series of one numeric field, over the messages that arrived while their thing was in the group."
    groupSeries(
      "The group's id ('unassigned': things in no group)."
      groupId: String!
      "The message id (tsmId) whose field is read."
      tsmId: Int!
      "The numeric field; members of nested objects by their dotted path (position.lat)."
      field: String!
      "Start of the range (tsmTs), Unix seconds, inclusive."
      from: Int!
      "End of the range (tsmTs), Unix seconds, inclusive."
      to: Int!
      "raw, 1h, 1d (UTC buckets) or auto (default): the finest giving at most maxPoints."
      bucket: String
      "At most this many points, 1 to 10000 (default 1000); an explicit bucket giving more is refused."
      maxPoints: Int
    ): Series!
    "One group's things (NOT_FOUND for a group the caller cannot see)."
    group("The group's id ('unassigned': things in no group)." groupId: String!): GroupThings
    "A thing's command history, newest request first."
    commands("The thing's TUID." tuid: ID!, "At most this many requests (0 or absent: all)." limit: Int): [CommandRecord!]!
    "A thing's installation status history, newest first."
    installations(
      "The thing's TUID."
      tuid: ID!
      "At most this many entries, 1 to 1000 (absent: all)."
      limit: Int
    ): [InstallationHistoryEntry!]!
    "The message catalog: every id with its fields, value sets and events."
    catalog: [JSON!]!
    "The organization's users."
    users: [User!]!
    "The organization's REST API clients."
    apiClients: [ApiClient!]!
    "The organization's MQTT credentials."
    mqttCredentials: [MqttCredential!]!
    "The platform instances serving this deployment, live and silent, as they last reported themselves."
    deployment: Deployment!
    "The organization's audit log, newest first (Managers). from/to: Unix seconds or ISO 8601, inclusive; actor: an id or label; limit 1 to 1000 (100)."
    auditLog(
      "Entries at or after this time: Unix seconds or ISO 8601."
      from: String
      "Entries at or before this time: Unix seconds or ISO 8601."
      to: String
      "The actor's id or label (an e-mail, a client_id)."
      actor: String
      "One action, such as thing.set_installation_status."
      action: String
      "The target's type, such as thing."
      targetType: String
      "The target's id, such as a TUID."
      targetId: String
      "At most this many entries, 1 to 1000 (default 100)."
      limit: Int
      "nextCursor of the previous page."
      cursor: String
    ): AuditPage!
    "The organization's webhook endpoints with their health."
    webhooks: [Webhook!]!
    "The delivery log of a webhook endpoint, newest first."
    webhookDeliveries(
      "The endpoint's id."
      webhookId: ID!
      "Only deliveries in this state: pending, succeeded or failed."
      status: String
      "At most this many (1 to 200, default 50)."
      limit: Int
      "nextCursor of the previous page."
      cursor: String
    ): WebhookDeliveryPage!
  }

  "Writes. Every one acts within the caller's organization only."
  type Mutation {
    "Signs in: a new session's access and refresh tokens (seed 001)."
    login("E-mail, organization name and password." loginInput: LoginInput!): LoginResult!
    "Exchanges a refresh token for a new token pair; a refresh token used twice ends the session (seed 001)."
    refreshToken("The organization and the current refresh token." refreshTokenInput: RefreshTokenInput!): RefreshTokenResult!
    "Ends the caller's session: its tokens stop working at once."
    logout: LogoutResult!
    "Signs in with the one-time code single sign-on put in the studio's URL (#sso=CODE, valid 60 s, works once): a seed-001 session, as login."
    ssoLogin("The code of #sso=." code: String!): LoginResult!
    "Moves a thing to another installation status, as the state machine allows (CONFLICT otherwise)."
    setInstallationStatus(
      "The thing's TUID."
      tuid: ID!
      "The new status: new, installed, uninstalled, quarantine or retired."
      status: String!
    ): InstallationResult!
    "Sets a thing's name and labels (NOT_FOUND for a thing the caller cannot see: it claims nothing). An argument left out stays as it is; labels replace all labels; name null clears the name."
    updateThing(
      "The thing's TUID."
      tuid: ID!
      "1 to 200 characters; null clears the name."
      name: String
      "Every label of the thing (at most 50): replaces them all."
      labels: [LabelInput!]
    ): Thing!
    "Imports things from a CSV or NDJSON file (SPEC section 12): the plan, and unless dryRun, applied all rows or none (BAD_USER_INPUT naming each bad field as rows[<row>].<column> when a row is in error). At most 1 MiB here (the request's limit); REST POST /things/import takes files up to 20 MiB."
    importThings(
      "The file's text."
      content: String!
      "CSV or NDJSON."
      format: ImportFormat!
      "true: answer the plan and change nothing."
      dryRun: Boolean
      "true: create the groups the file names that do not exist."
      createGroups: Boolean
      "true: leave the unchanged rows out of rows."
      changedOnly: Boolean
    ): ImportPlan!
    "Puts a thing in a group ('unassigned': in none)."
    assignThingToGroup("The thing's TUID." tuid: ID!, "The group's id." groupId: String!): Thing!
    "Puts many things in one group, each as assignThingToGroup would, in one request: one result per distinct TUID, in the order named (NOT_FOUND for an unknown group, before anything changes)."
    assignThingsToGroup("The group's id ('unassigned': in none)." groupId: String!, "1 to 500 TUIDs." tuids: [ID!]!): [GroupAssignment!]!
    "Sends commands to a thing, checked strictly against the catalog, and records them."
    sendCommands("The thing's TUID." tuid: ID!, "At most 100 commands (catalog downlink messages)." commands: [JSON!]!): SendCommandsResult!
    "Creates a group."
    createGroup("The new group's id." groupId: String!, "Free text." description: String): Group!
    "Renames a group; its things move with it."
    renameGroup("The group's id." groupId: String!, "The new id." newGroupId: String!): Group!
    "Deletes a group; its things become unassigned. True on success (NOT_FOUND for an unknown group)."
    deleteGroup("The group's id." groupId: String!): Boolean!
    "Creates a user of the organization."
    createUser("The user's e-mail." email: String!, "The user's password." password: String!, "What the user may call." role: Role!): User!
    "Changes a user's role; the user's sessions end."
    setUserRole("The user's id." userId: ID!, "The new role." role: Role!): User!
    "Deletes a user; the user's sessions end. True on success."
    deleteUser("The user's id." userId: ID!): Boolean!
    "Sets how long the organization keeps its data (whole days, 0 to 36500; 0 keeps forever). An argument left out is unchanged; null returns it to the platform's default."
    setRetention(
      "Days raw messages are kept after arrival."
      messageRetentionDays: Int
      "Days hourly and daily rollups are kept."
      rollupRetentionDays: Int
    ): Retention!
    "Creates a REST API client; its secret is shown once."
    createApiClient("A name to recognize the client by." name: String!): ApiClientCredentials!
    "Revokes a REST API client: its tokens stop working. True on success."
    revokeApiClient("The client's id." clientId: String!): Boolean!
    "Creates an MQTT credential; its password is shown once."
    createMqttCredential(
      "What it may do."
      kind: MqttCredentialKind!
      "The username (generated when absent)."
      username: String
    ): MqttCredentialSecret!
    "Revokes an MQTT credential: its connections close. True on success."
    revokeMqttCredential("The username." username: String!): Boolean!
    "Creates a webhook endpoint; its signing secret is shown once."
    createWebhook("The endpoint's fields; url and events are required." input: WebhookInput!): WebhookWithSecret!
    "Changes a webhook endpoint."
    updateWebhook("The endpoint's id." id: ID!, "The fields to change." input: WebhookInput!): Webhook!
    "Deletes a webhook endpoint; its pending deliveries are dropped. True on success."
    deleteWebhook("The endpoint's id." id: ID!): Boolean!
    "A new signing secret; the previous one signs too for WEBHOOK_SECRET_OVERLAP_S."
    rotateWebhookSecret("The endpoint's id." id: ID!): WebhookWithSecret!
    "Queues new attempts for one delivery, or for every failed delivery since a time; answers how many."
    replayWebhookDeliveries(
      "The endpoint's id."
      webhookId: ID!
      "One delivery to replay."
      deliveryId: ID
      "Every failed delivery created since this time, Unix seconds."
      since: Float
    ): Int!
    "Sends a webhook.test event now and answers the attempt."
    testWebhook("The endpoint's id." id: ID!): WebhookAttempt!
  }

  "Live data, over WebSocket (graphql-transport-ws) or server-sent events."
  type Subscription {
    "Live stored uplinks of the organization, optionally of one thing or one group."
    messages("Only this thing's messages." tuid: ID, "Only messages of things in this group." groupId: String): JSON!
    "Alert periods opening and closing in the organization."
    alerts: AlertEvent!
    "Commands of the organization (optionally of one thing) as their things answer them, whichever instance took the answer."
    commandStatus("Only this thing's commands." tuid: ID): CommandStatusChange!
  }
`;
