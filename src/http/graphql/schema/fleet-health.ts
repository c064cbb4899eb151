// The fleet overview: status counts, alerting, silent gateways, low batteries and health per group.
// Part of typeDefs (../type-defs.ts), which joins the parts in this order.
export const fleetHealthSdl = /* GraphQL */ `
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
    "critical, warning or info; null where the period has none."
    severity: String
    "The alert rule of a rule's period (type RULE); null for built-in alerts."
    ruleId: ID
    "The value that opened the period (a rule's reading, battery low's level); null when none."
    value: Float
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
`;
