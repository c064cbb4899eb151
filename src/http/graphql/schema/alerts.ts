// Alert periods, alert records and the events of the live alert stream.
// Part of typeDefs (../type-defs.ts), which joins the parts in this order.
export const alertsSdl = /* GraphQL */ `
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
    "The alert rule of a rule's period (type RULE); null for built-in alerts."
    ruleId: ID
    "A rule period's severity: critical, warning or info; null for built-in alerts."
    severity: String
    "The value that opened a rule's period; null for built-in alerts."
    value: Float
  }
`;
