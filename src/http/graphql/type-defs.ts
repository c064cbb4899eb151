/**
 * The full GraphQL schema (SPEC section 4). Each role sees a part of it (access.ts); the fixed operations of the
 * SPEC table keep exactly these names and shapes, and arguments keep their types. Descriptions end up in
 * introspection and the published SDL, so they are written for the people who read them; every type, field,
 * argument and enum value has one (a test checks). Closed sets that are returned are enums whose values keep the
 * spelling REST and the live streams use (`installed`, `opened`, ...), so nothing changes on the wire; alert types,
 * whose names have spaces, keep their `String` field with an enum field beside it.
 */
export const typeDefs = /* GraphQL */ `
  "thingdesk: things, their messages, commands, installation status, groups and alerts, for the caller's organization."
  schema {
    query: Query
    mutation: Mutation
    subscription: Subscription
  }

  "Any JSON value: device messages and commands, whose fields depend on the message id (see the catalog)."
  scalar JSON

  "A user's role: what the user may call (docs/graphql.md has the table)."
  enum Role {
    "Everything, including users, API clients and MQTT credentials."
    MANAGER
    "Reads, plus setting installation status and assigning things to groups."
    INSTALLER
    "Reads only."
    VIEWER
  }

  "What an MQTT credential may do on the broker."
  enum MqttCredentialKind {
    "A gateway: publishes its things' uplinks and receives their commands."
    GATEWAY
    "An integration: reads the organization's data feed and alert events."
    INTEGRATION
  }

  "Where a thing stands in its installation life cycle (the same words as REST)."
  enum InstallationStatus {
    "Known to the platform (first heard or created), not yet installed."
    new
    "Installed in the field."
    installed
    "Taken out of the field; may be installed again."
    uninstalled
    "Set aside: raises no connection alerts."
    quarantine
    "Out of service for good: raises no connection alerts."
    retired
  }

  "Where a sent command stands."
  enum CommandStatus {
    "Published to the thing; no answer with its transactionId yet."
    sent
    "The thing answered (its echo or another answer)."
    applied
    "The thing answered with a 1102: it cannot supply what was asked."
    unavailable
  }

  "Whether an alert period began or ended."
  enum AlertState {
    "The period began: the alert is active."
    opened
    "The period ended: the alert is no longer active."
    closed
  }

  "The kinds of alert, as enum values; the alertType fields carry the same kinds in their REST spelling."
  enum AlertType {
    "'gateway connection lost': nothing arrived through the thing's gateway for GATEWAY_TIMEOUT_S."
    GATEWAY_CONNECTION_LOST
    "'device connection lost': nothing arrived from the thing for DEVICE_TIMEOUT_S."
    DEVICE_CONNECTION_LOST
    "'battery low': the thing's battery level is below BATTERY_LOW_PERCENT (until it reaches BATTERY_OK_PERCENT)."
    BATTERY_LOW
  }

  "What login needs (seed 001)."
  input LoginInput {
    "The user's e-mail."
    email: String!
    "The name of the user's organization (case is ignored)."
    organizationName: String!
    "The user's password."
    password: String!
  }

  "What refreshToken needs (seed 001)."
  input RefreshTokenInput {
    "The organizationId of the login result."
    organizationId: String!
    "The current refresh token; each works once."
    refreshToken: String!
  }

  "A new session's tokens."
  type LoginResult {
    "JWT for Authorization: Bearer on later requests."
    accessToken: String!
    "Seconds the access token is valid (900)."
    expiresIn: Int!
    "Seconds the refresh token is valid (43200)."
    refreshExpiresIn: Int!
    "JWT that refreshToken exchanges for a new pair, once."
    refreshToken: String!
    "The organization of the signed-in user."
    organizationId: String!
  }

  "A session's new token pair."
  type RefreshTokenResult {
    "JWT for Authorization: Bearer on later requests."
    accessToken: String!
    "Seconds the access token is valid (900)."
    expiresIn: Int!
    "Seconds the refresh token is valid (43200)."
    refreshExpiresIn: Int!
    "The refresh token to use next time; the one sent no longer works."
    refreshToken: String!
  }

  "The outcome of logout."
  type LogoutResult {
    "True: the session has ended and its tokens no longer work."
    success: Boolean!
  }

  "A user of the organization."
  type User {
    "The user's id."
    id: ID!
    "The user's e-mail, unique in the organization."
    email: String!
    "What the user may call."
    role: Role!
    "The user's organization."
    organizationId: String!
  }

  "The caller's organization."
  type Organization {
    "The organization's id."
    id: ID!
    "The organization's name, used to sign in."
    name: String!
    "How long the organization's data is kept."
    retention: Retention!
  }

  "How long an organization's data is kept, counted from each message's arrival on the platform (not its tsmTs)."
  type Retention {
    "Days raw messages are kept, in force: the organization's own setting or the platform's default. 0: forever."
    messageRetentionDays: Int!
    "Days hourly and daily rollups are kept, in force. 0: forever."
    rollupRetentionDays: Int!
    "The organization's own setting for raw messages; null: the platform's default (MESSAGE_RETENTION_DAYS)."
    messageRetentionOverride: Int
    "The organization's own setting for rollups; null: the platform's default (ROLLUP_RETENTION_DAYS)."
    rollupRetentionOverride: Int
  }

  "A position in degrees (WGS 84)."
  type Location {
    "Latitude, -90 to 90."
    lat: Float!
    "Longitude, -180 to 180."
    lon: Float!
  }

  "A thing's summary: each value from the newest message (by tsmTs) that carries it."
  type Thing {
    "The thing's TUID."
    tuid: ID!
    "Newest 1110 batl, rounded to a whole percent; null until one arrives."
    batteryLevel: Int
    "tsmTs of the newest message, Unix seconds (fractions possible); null until one arrives."
    timestamp: Float
    "Newest location reported; null until one arrives."
    location: Location
    "TUID of the gateway the newest message came through."
    gatewayTuid: String
    "Newest 1100 swVersion; 'unknown' until one arrives."
    version: String!
    "Where the thing stands in its installation life cycle."
    installationStatus: InstallationStatus!
    "The thing's deployment group; 'unassigned' for a thing in no group."
    groupId: String!
    "The statuses setInstallationStatus accepts as this thing's next move, from the installation state machine; empty for a retired thing."
    nextInstallationStatuses: [InstallationStatus!]!
    "The series the thing has: per message id, the numeric fields of its newest 200 messages (the fields series reads)."
    seriesFields: [SeriesFields!]!
  }

  "The numeric fields of one message id: each has a series."
  type SeriesFields {
    "The message id (tsmId)."
    tsmId: Int!
    "The numeric fields, members of nested objects by their dotted path, in the order they appear."
    fields: [String!]!
  }

  "A thing in a page of things."
  type ThingEdge {
    "Opaque cursor: pass it as after to continue after this thing."
    cursor: String!
    "The thing."
    node: Thing!
  }

  "Where a page of a connection lies in the whole list."
  type PageInfo {
    "True when more items follow this page."
    hasNextPage: Boolean!
    "True when the page was asked for after a cursor (items may precede it); false on the first page."
    hasPreviousPage: Boolean!
    "Cursor of the page's first item; null for an empty page."
    startCursor: String
    "Cursor to pass as after for the next page; null on the last page."
    endCursor: String
  }

  "A page of the organization's things, by TUID."
  type ThingConnection {
    "The things of the page with their cursors."
    edges: [ThingEdge!]!
    "The things of the page, without cursors."
    nodes: [Thing!]!
    "Where the page lies, and how to get the next one."
    pageInfo: PageInfo!
  }

  "A deployment group and how many things it holds."
  type Group {
    "The group's id; 'unassigned' is the pseudo-group of things in no group."
    groupId: String!
    "Free text; null when none was given."
    description: String
    "Things in the group."
    thingCount: Int!
    "When the group was created, Unix seconds; null for the unassigned pseudo-group."
    createdAt: Int
  }

  "A group's things."
  type GroupThings {
    "The group's id."
    groupId: String!
    "TUIDs of the group's things."
    tuids: [ID!]!
    "The group's things with their summaries."
    things: [Thing!]!
  }

  "Why one thing of assignThingsToGroup was not assigned."
  type AssignmentProblem {
    "The error code, as extensions.code would carry it: BAD_USER_INPUT (a TUID no thing can have) or NOT_FOUND."
    code: String!
    "What went wrong, for a person."
    message: String!
  }

  "What became of one TUID of assignThingsToGroup."
  type GroupAssignment {
    "The TUID as named."
    tuid: ID!
    "The thing as it is now (in the group); null when it was not assigned."
    thing: Thing
    "Why it was not assigned; null when it was."
    problem: AssignmentProblem
  }

  "One period of an alert, as REST's alert records show it."
  type AlertPeriod {
    "When the period began: local date-time (YYYY-MM-DDTHH:MM:SS, no offset) in ALERT_TIMEZONE."
    from: String!
    "When the period ended: local date-time in ALERT_TIMEZONE; null while active."
    to: String
  }

  "A thing's periods of one alert type, as REST's alert records show them."
  type AlertRecord {
    "The thing's TUID."
    tuid: ID!
    "The alert type in REST's spelling: 'gateway connection lost', 'device connection lost' or 'battery low'."
    alertType: String!
    "The alert type as an enum value."
    type: AlertType!
    "The periods overlapping the asked window, oldest first."
    alerts: [AlertPeriod!]!
  }

  "An alert period opening or closing (the same event as the MQTT alert feed)."
  type AlertEvent {
    "The thing's TUID."
    tuid: ID!
    "The alert type in REST's spelling: 'gateway connection lost', 'device connection lost' or 'battery low'."
    alertType: String!
    "The alert type as an enum value."
    type: AlertType!
    "Whether the period began or ended."
    state: AlertState!
    "When the period began: local date-time (YYYY-MM-DDTHH:MM:SS, no offset) in ALERT_TIMEZONE."
    from: String!
    "When the period ended: local date-time in ALERT_TIMEZONE; null when it opened."
    to: String
  }

  "A thing's installation status after a change."
  type InstallationResult {
    "The thing's TUID."
    tuid: ID!
    "The status now."
    installationStatus: InstallationStatus!
    "The thing's deployment group; 'unassigned' for a thing in no group."
    groupId: String!
    "When the status was set, Unix seconds."
    timestamp: Int!
    "Who set it: the user's e-mail (a REST client's id for changes made over REST)."
    responsible: String!
  }

  "One change of a thing's installation status."
  type InstallationHistoryEntry {
    "The status set."
    installationStatus: InstallationStatus!
    "When it was set, Unix seconds."
    timestamp: Int!
    "Who set it: a user's e-mail or a REST client's id."
    responsible: String!
  }

  "Commands as published to a thing."
  type SendCommandsResult {
    "The thing's TUID."
    tuid: ID!
    "When they were sent, Unix seconds."
    timestamp: Int!
    "Who sent them: the user's e-mail."
    responsible: String!
    "The commands as published, with tsmTs and tsmDstTuid set."
    commands: [JSON!]!
  }

  "One request of a thing's command history."
  type CommandRecord {
    "The thing's TUID."
    tuid: ID!
    "When the request was sent, Unix seconds."
    timestamp: Int!
    "Who sent it: a user's e-mail or a REST client's id."
    responsible: String!
    "The first command of the request with its status, response and respondedAt (Unix seconds), as REST shows it."
    command: JSON!
    "Every command of the request, as command shows the first."
    commands: [JSON!]!
    "Where the first command stands (its status in command)."
    status: CommandStatus!
    "Where each command stands, in the order of commands."
    statuses: [CommandStatus!]!
  }

  "A command whose thing answered it: its new status, as the command history shows it from then on."
  type CommandStatusChange {
    "The thing's TUID."
    tuid: ID!
    "The command's transactionId."
    transactionId: Int!
    "Its status now."
    status: CommandStatus!
    "The command with its status, response and respondedAt (Unix seconds), as CommandRecord.commands shows it."
    command: JSON!
  }

  "A new API client's credentials; the secret is shown this once."
  type ApiClientCredentials {
    "The client's id (client_id of REST's token endpoint)."
    clientId: String!
    "The client's secret (client_secret); only its hash is stored."
    clientSecret: String!
  }

  "An API client of REST."
  type ApiClient {
    "The client's id."
    clientId: String!
    "The name given at creation."
    name: String!
    "When it was created, Unix seconds."
    createdAt: Int!
    "True once revoked: its tokens no longer work."
    revoked: Boolean!
  }

  "The platform's instances. They register only on PostgreSQL, where several can share the store."
  type Deployment {
    "False on SQLite: one process serves the store and keeps no register (the list is then empty)."
    registered: Boolean!
    "Every registered instance, newest start first."
    instances: [PlatformInstance!]!
  }

  "One running platform process, as of its last heartbeat (every 5 s). Its host is not shown: it is the operator's, not the organization's."
  type PlatformInstance {
    "The instance id: MQTT_CLIENT_ID and a random suffix; it names the instance in leases and broker client ids."
    id: ID!
    "The platform version it runs."
    version: String!
    "When it started, in Unix seconds."
    startedAt: Int!
    "Its last heartbeat, in Unix seconds."
    heartbeatAt: Int!
    "Heard from within the last 15 s."
    live: Boolean!
    "Its MQTT side: embedded or external."
    broker: String!
    "External broker: the consumer slots it runs."
    consumerSlots: [Int!]!
    "External broker: uplinks received and not yet acknowledged (null with the embedded broker)."
    uplinksInFlight: Int
    "External broker: how long the oldest unacknowledged uplink has waited, in milliseconds (null with the embedded broker)."
    consumerLagMs: Int
    "GraphQL subscriptions open on it."
    liveSubscriptions: Int
    "The cluster leases it holds: the alert engine's, its consumer slots, its membership."
    leases: [String!]!
  }

  "A new MQTT credential; the password is shown this once."
  type MqttCredentialSecret {
    "The MQTT username."
    username: String!
    "The MQTT password, shown this once; the store keeps its hash (and, for a broker the platform manages, a copy sealed under a key outside the store)."
    password: String!
    "What the credential may do."
    kind: MqttCredentialKind!
  }

  "An MQTT credential of the organization."
  type MqttCredential {
    "The MQTT username."
    username: String!
    "What the credential may do."
    kind: MqttCredentialKind!
    "When it was created, Unix seconds."
    createdAt: Int!
    "True once revoked: its connections are closed and it cannot connect."
    revoked: Boolean!
  }

  "One point of a series: a bucket's figures, or one stored message (count 1, every figure its value)."
  type SeriesPoint {
    "The bucket's start (UTC hour or day), or the message's tsmTs for a raw point, Unix seconds."
    t: Float!
    "Readings in the bucket."
    count: Int!
    "Smallest reading."
    min: Float!
    "Largest reading."
    max: Float!
    "Mean of the readings."
    avg: Float!
    "The reading with the earliest tsmTs."
    first: Float!
    "The reading with the latest tsmTs."
    last: Float!
  }

  "A part of the asked range and the bucket that answered it (before the raw retention horizon, raw is answered by 1h)."
  type SeriesSegment {
    "Start of the part, Unix seconds."
    from: Int!
    "End of the part, Unix seconds, inclusive."
    to: Int!
    "raw, 1h or 1d."
    bucket: String!
  }

  "A time series of one numeric field of one message id, from the hourly rollups and the stored messages."
  type Series {
    "The thing's TUID (series); null for a group's series."
    tuid: ID
    "The group ('unassigned': things in no group) for groupSeries; null for a thing's series."
    groupId: String
    "The message id (tsmId) read."
    tsmId: Int!
    "The field read; members of nested objects by their dotted path."
    field: String!
    "The bucket chosen: raw, 1h or 1d (auto resolved)."
    bucket: String!
    "Which bucket answered which part of the range."
    segments: [SeriesSegment!]!
    "The points, oldest first; empty buckets are left out."
    points: [SeriesPoint!]!
  }

  "Things of the organization per installation status."
  type StatusCounts {
    "Every thing of the organization."
    total: Int!
    "Things in status new."
    new: Int!
    "Things in status installed."
    installed: Int!
    "Things in status uninstalled."
    uninstalled: Int!
    "Things in status quarantine."
    quarantine: Int!
    "Things in status retired."
    retired: Int!
  }

  "An alert period active now."
  type ActiveAlert {
    "The thing's TUID."
    tuid: ID!
    "The alert type in REST's spelling: 'gateway connection lost', 'device connection lost' or 'battery low'."
    alertType: String!
    "The alert type as an enum value."
    type: AlertType!
    "When the period began, Unix seconds."
    since: Int!
    "When the period began: local date-time (YYYY-MM-DDTHH:MM:SS, no offset) in ALERT_TIMEZONE."
    sinceLocal: String!
  }

  "What is alerting now."
  type FleetAlerting {
    "Things with at least one active alert."
    thingCount: Int!
    "Active alert periods (a thing with two active types counts twice)."
    alertCount: Int!
    "The active periods, newest first, at most limit."
    alerts: [ActiveAlert!]!
  }

  "A gateway with an active 'gateway connection lost' on the things last heard through it."
  type SilentGateway {
    "The gateway's TUID."
    gatewayTuid: String!
    "Things whose active gateway alert names this gateway."
    thingCount: Int!
    "When its silence began (its earliest active period), Unix seconds."
    since: Int!
    "When its silence began: local date-time (YYYY-MM-DDTHH:MM:SS, no offset) in ALERT_TIMEZONE."
    sinceLocal: String!
  }

  "The gateways silent now."
  type SilentGateways {
    "Silent gateways."
    count: Int!
    "The silent gateways, the most recently silent first, at most limit."
    gateways: [SilentGateway!]!
  }

  "A thing whose battery is below the threshold."
  type LowBatteryThing {
    "The thing's TUID."
    tuid: ID!
    "Its battery level, rounded to a whole percent as Thing.batteryLevel shows it."
    batteryLevel: Int!
  }

  "Things whose newest battery level is below the threshold, whatever their status."
  type LowBattery {
    "Things below the threshold."
    count: Int!
    "Those things, the lowest level first (then by TUID), at most limit."
    things: [LowBatteryThing!]!
  }

  "How many installed things of a group fall in one battery bucket."
  type BatteryBucket {
    "unknown (no level reported), 0-14, 15-29, 30-49, 50-79 or 80-100; by the exact level (14.6 is in 0-14)."
    bucket: String!
    "Installed things in the bucket."
    count: Int!
  }

  "A deployment group's health line."
  type GroupHealth {
    "The group's id; 'unassigned' for the things in no group."
    groupId: String!
    "Things in the group, whatever their status."
    thingCount: Int!
    "Things in the group with status installed."
    installed: Int!
    "Installed things with no active connection alert (device or gateway connection lost)."
    online: Int!
    "online / installed, 0 to 1; null without installed things."
    onlineShare: Float
    "Seconds the installed things spent under a connection alert in the window; one thing's overlapping periods count once."
    downtimeSeconds: Float!
    "1 - downtimeSeconds / (installed x window seconds), 0 to 1; null without installed things."
    uptime: Float
    "The installed things per battery bucket: every bucket, unknown first."
    battery: [BatteryBucket!]!
  }

  "The organization's fleet at a glance, as of generatedAt."
  type FleetHealth {
    "When the figures were read, Unix seconds."
    generatedAt: Int!
    "The uptime window in days (the days argument)."
    windowDays: Int!
    "The low battery threshold in percent (batteryBelow, else BATTERY_LOW_PERCENT, which may have a fraction)."
    batteryBelow: Float!
    "Things per installation status."
    statusCounts: StatusCounts!
    "Things alerting now and since when."
    alerting: FleetAlerting!
    "Gateways silent now."
    silentGateways: SilentGateways!
    "Things whose battery is below batteryBelow."
    lowBattery: LowBattery!
    "One health line per group and for 'unassigned', by group id, 'unassigned' last."
    groups: [GroupHealth!]!
  }

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
    "The organization's things by TUID, a page at a time."
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
    ): ThingConnection!
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
  }

  "Writes. Every one acts within the caller's organization only."
  type Mutation {
    "Signs in: a new session's access and refresh tokens (seed 001)."
    login("E-mail, organization name and password." loginInput: LoginInput!): LoginResult!
    "Exchanges a refresh token for a new token pair; a refresh token used twice ends the session (seed 001)."
    refreshToken("The organization and the current refresh token." refreshTokenInput: RefreshTokenInput!): RefreshTokenResult!
    "Ends the caller's session: its tokens stop working at once."
    logout: LogoutResult!
    "Moves a thing to another installation status, as the state machine allows (CONFLICT otherwise)."
    setInstallationStatus(
      "The thing's TUID."
      tuid: ID!
      "The new status: new, installed, uninstalled, quarantine or retired."
      status: String!
    ): InstallationResult!
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
