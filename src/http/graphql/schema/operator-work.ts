// Alerts as work items, gateways, the things list at scale and password changes (SPEC section 16): their types and
// operations, as extensions of Query and Mutation so this part stands alone. Access per role: access.ts.
// Part of typeDefs (../type-defs.ts), joined after the operations.
export const operatorWorkSdl = /* GraphQL */ `
  "Who marked an alert period seen, when, and why."
  type AlertAcknowledgement {
    "The caller who acknowledged it: a client id or a user's e-mail (as 'responsible')."
    by: String!
    "When, Unix seconds."
    at: Int!
    "The note given; null when none."
    note: String
  }

  "One alert period as a work item, across things (SPEC section 16)."
  type AlertWorkItem {
    "The period's id (for acknowledgeAlert)."
    id: ID!
    "The thing's TUID."
    tuid: ID!
    "The alert type: 'gateway connection lost', 'device connection lost', 'battery low', or a rule's."
    alertType: String!
    "critical, warning or info."
    severity: String
    "The alert rule that opened it; null for built-in alerts."
    ruleId: String
    "The value that opened it (battery low: the batl); null when none."
    value: Float
    "When the period began: local date-time (YYYY-MM-DDTHH:MM:SS, no offset) in ALERT_TIMEZONE."
    from: String!
    "When the period ended: local date-time in ALERT_TIMEZONE; null while open."
    to: String
    "When the period began, Unix seconds."
    fromTs: Int!
    "When the period ended, Unix seconds; null while open."
    toTs: Int
    "The thing's gateway when the period opened."
    gatewayTuid: String
    "The thing's group when the period opened ('unassigned': none)."
    groupId: String!
    "Periods sharing a cause share it (one gateway's silence); null when alone."
    incidentId: String
    "Who marked it seen; null until someone does."
    acknowledged: AlertAcknowledgement
  }

  "A page of alert periods, newest first."
  type AlertWorkConnection {
    "The periods of the page."
    nodes: [AlertWorkItem!]!
    "Where the page lies, and how to get the next one."
    pageInfo: PageInfo!
  }

  "A gateway as the messages name it (tsmGw), with what is known of its silence (SPEC section 16)."
  type Gateway {
    "The gateway's TUID."
    gatewayTuid: ID!
    "The newest arrival through it on the platform's clock, Unix seconds."
    lastSeen: Int!
    "When its silence passed GATEWAY_TIMEOUT_S, Unix seconds; null while online."
    silentSince: Int
    "Things last heard through it."
    thingCount: Int!
    "Of those, the ones silent for DEVICE_TIMEOUT_S."
    thingsSilent: Int!
    "The MQTT credential it last published with; null when not known."
    mqttUsername: String
  }

  "A page of gateways, by TUID."
  type GatewayConnection {
    "The gateways of the page."
    nodes: [Gateway!]!
    "Where the page lies, and how to get the next one."
    pageInfo: PageInfo!
  }

  "One gateway and the things last heard through it."
  type GatewayDetail {
    "The gateway."
    gateway: Gateway!
    "Its things by TUID (at most 1000; thingCount says how many it has)."
    things: [Thing!]!
  }

  "The things list's filters, for acting on the things they match."
  input ThingFilterInput {
    "Only things of this group ('unassigned': things in no group)."
    groupId: String
    "Only things with this status."
    installationStatus: String
    "Only things whose TUID contains this text, ignoring case."
    q: String
    "true: only things with an active alert; false: only things without one."
    alerting: Boolean
    "Only things last heard through this gateway."
    gatewayTuid: String
    "Only things whose battery level is below this percent (1 to 100)."
    batteryBelow: Int
    "Only things not heard for at least this many seconds, or never heard."
    silentForS: Int
  }

  "What became of one thing of a bulk action."
  type BulkThingResult {
    "The thing's TUID as named."
    tuid: String!
    "True when the action was applied."
    ok: Boolean!
    "The single call's error code when not (VALIDATION_FAILED, NOT_FOUND, INVALID_TRANSITION, ...)."
    code: String
    "The single call's error message when not."
    message: String
  }

  "A password made by resetUserPassword: shown this once, stored only as a hash."
  type OneTimePassword {
    "The user whose password it is."
    userId: ID!
    "The new password, to hand to the user."
    password: String!
  }

  extend type Query {
    "The organization's gateways by TUID, a page at a time."
    gateways(
      "Only gateways whose TUID contains this text, ignoring case."
      q: String
      "online or silent (nothing heard through it for GATEWAY_TIMEOUT_S)."
      state: String
      "Gateways per page, 1 to 1000 (default 100)."
      first: Int
      "endCursor of the previous page."
      after: String
    ): GatewayConnection!
    "One gateway with its things; null for a gateway no thing of the organization was heard through."
    gateway("The gateway's TUID." tuid: ID!): GatewayDetail
    "The organization's alert periods across things, newest first, a page at a time."
    alertPeriods(
      "open or closed (default: both)."
      state: String
      "Only this alert type."
      alertType: String
      "Only this severity: critical, warning or info."
      severity: String
      "Only periods opened while their thing was in this group ('unassigned': in none)."
      groupId: String
      "Only this thing's periods."
      tuid: ID
      "Only periods opened while their thing was behind this gateway."
      gatewayTuid: String
      "Only this incident's periods."
      incidentId: String
      "true: only acknowledged periods; false: only those nobody acknowledged."
      acknowledged: Boolean
      "Only periods overlapping from..to: start, Unix seconds."
      from: Int
      "End of the window, Unix seconds."
      to: Int
      "Periods per page, 1 to 1000 (default 100)."
      first: Int
      "endCursor of the previous page."
      after: String
    ): AlertWorkConnection!
  }

  extend type Mutation {
    "Changes the caller's own password; the caller's other sessions end. True on success (BAD_USER_INPUT naming current when it is wrong)."
    changePassword("The current password." current: String!, "The new password, 8 to 1024 characters." new: String!): Boolean!
    "Gives a user a new random password, answered once; the old password and the user's sessions end at once."
    resetUserPassword("The user's id." userId: ID!): OneTimePassword!
    "Applies one action to many things (Managers), each through the single call's rules: one result per thing."
    bulkUpdateThings(
      "set_group, set_installation_status, set_labels or send_commands."
      action: String!
      "The things, 1 to 500 TUIDs (or filter)."
      tuids: [String!]
      "The things matching these filters, at most 500 (or tuids)."
      filter: ThingFilterInput
      "For set_group: the group's id ('unassigned': in none)."
      groupId: String
      "For set_installation_status: the new status."
      installationStatus: String
      "For set_labels: each thing's new labels, replacing all it has (as updateThing)."
      labels: [LabelInput!]
      "For send_commands: the commands, as sendCommands takes them."
      commands: [JSON!]
    ): [BulkThingResult!]!
    "Marks one alert period seen; it stays open until its condition clears (Installers and Managers)."
    acknowledgeAlert("The period's id." id: ID!, "Why, or what is being done (at most 1024 characters)." note: String): AlertWorkItem!
    "Marks every period of an incident, or several by id, seen (exactly one of incidentId and ids)."
    acknowledgeAlerts(
      "The incident whose periods to acknowledge."
      incidentId: String
      "The periods' ids, 1 to 1000."
      ids: [ID!]
      "Why, or what is being done (at most 1024 characters)."
      note: String
    ): [AlertWorkItem!]!
  }
`;
