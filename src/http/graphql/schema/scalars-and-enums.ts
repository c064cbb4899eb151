// The schema root, the JSON scalar and the enums: the closed sets every part of the schema uses.
// Part of typeDefs (../type-defs.ts), which joins the parts in this order.
export const scalarsAndEnumsSdl = /* GraphQL */ `
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
    "An organization's own alert rule (SPEC section 13); alertType is the rule's name."
    RULE
  }
`;
