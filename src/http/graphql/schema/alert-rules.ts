// Alert rules (SPEC section 13): readable by every role, written by Managers. Part of typeDefs (../type-defs.ts).
export const alertRulesSdl = /* GraphQL */ `
  "Which things a rule covers: both lists narrow (a thing must match each given list); both null: every thing."
  type AlertRuleScope {
    "Things in these groups ('unassigned': in none); null: any group."
    groupIds: [String!]
    "These things only; null: any thing."
    tuids: [String!]
  }

  "A condition on a numeric field of an uplink; an alert period per thing opens while it holds."
  type AlertRule {
    "The rule's id (rule_id on its periods)."
    id: ID!
    "Unique in the organization; the alertType of its periods."
    name: String!
    "The message id the rule reads."
    tsmId: Int!
    "A dotted path into the message (temp, env.temp)."
    field: String!
    "How the value compares with the threshold: gt, gte, lt, lte, eq or ne."
    op: String!
    "The threshold the value is compared with."
    threshold: Float!
    "Hysteresis: the period closes only once the value is back past this; null: the threshold."
    clearThreshold: Float
    "Seconds the condition must hold, by arrival time, before the period opens."
    forS: Int!
    "Which things it covers."
    scope: AlertRuleScope!
    "critical, warning or info."
    severity: String!
    "False: evaluates nothing (disabling closes its open periods)."
    enabled: Boolean!
    "Notification channel ids told when a period opens or closes."
    channels: [String!]!
    "When it was created, Unix seconds."
    createdAt: Float!
    "When it last changed, Unix seconds."
    updatedAt: Float!
  }

  "The things a rule covers; on update, a given scope replaces the old one."
  input AlertRuleScopeInput {
    "Things in these groups ('unassigned': in none)."
    groupIds: [String!]
    "These things only."
    tuids: [String!]
  }

  "The fields of a rule; name, tsmId, field, op, threshold and severity are required to create; on update only those given change."
  input AlertRuleInput {
    "Unique in the organization, 1 to 100 characters."
    name: String
    "The message id the rule reads."
    tsmId: Int
    "A dotted path into the message."
    field: String
    "gt, gte, lt, lte, eq or ne."
    op: String
    "The threshold."
    threshold: Float
    "Hysteresis threshold (gt/gte: at or below the threshold; lt/lte: at or above)."
    clearThreshold: Float
    "Seconds the condition must hold before the period opens, 0 to 604800 (default 0)."
    forS: Int
    "Which things it covers (default every thing)."
    scope: AlertRuleScopeInput
    "critical, warning or info."
    severity: String
    "Default true."
    enabled: Boolean
    "Notification channel ids."
    channels: [String!]
  }

  "A thing's last value of the previewed field."
  type AlertRulePreviewSample {
    "The thing's TUID."
    tuid: ID!
    "The number at the field in the thing's last message of the id; null when that message has none there, or no message of the id was found."
    value: Float
    "When that message arrived, Unix seconds; null when none was found."
    at: Float
  }

  "What a rule would read: the things its scope covers and the field's last values on some of them."
  type AlertRulePreview {
    "Things of the organization the scope covers now."
    thingCount: Int!
    "The field's last value on at most 10 things of the scope, the most recently heard first (each among its 1000 newest messages)."
    samples: [AlertRulePreviewSample!]!
  }

  extend type Query {
    "The organization's alert rules by name."
    alertRules: [AlertRule!]!
    "Previews a rule being written: how many things the scope covers and the field's last values on some of them."
    alertRulePreview(
      "The message id the rule reads."
      tsmId: Int!
      "A dotted path into the message (temp, env.temp)."
      field: String!
      "Which things it covers (default every thing)."
      scope: AlertRuleScopeInput
    ): AlertRulePreview!
  }

  extend type Mutation {
    "Creates an alert rule."
    createAlertRule("The rule's fields." input: AlertRuleInput!): AlertRule!
    "Changes an alert rule; disabling closes its open periods, renaming keeps their history."
    updateAlertRule("The rule's id." id: ID!, "The fields to change." input: AlertRuleInput!): AlertRule!
    "Deletes an alert rule; its open periods close and stay in the history. True on success."
    deleteAlertRule("The rule's id." id: ID!): Boolean!
  }
`;
