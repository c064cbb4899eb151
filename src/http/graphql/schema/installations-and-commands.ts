// Installation results and history; commands sent, their records and status changes.
// Part of typeDefs (../type-defs.ts), which joins the parts in this order.
export const installationsAndCommandsSdl = /* GraphQL */ `
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
`;
