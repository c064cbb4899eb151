// Things, their pages (cursor connections) and deployment groups with their membership answers.
// Part of typeDefs (../type-defs.ts), which joins the parts in this order.
export const thingsAndGroupsSdl = /* GraphQL */ `
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
    "The thing's name, at most 200 characters; null when unset."
    name: String
    "The thing's labels, by key; empty when none."
    labels: [Label!]!
    "The statuses setInstallationStatus accepts as this thing's next move, from the installation state machine; empty for a retired thing."
    nextInstallationStatuses: [InstallationStatus!]!
    "The series the thing has: per message id, the numeric fields of its newest 200 messages (the fields series reads)."
    seriesFields: [SeriesFields!]!
  }

  "One label of a thing: a key ([a-z0-9_.-]{1,63}) and its value (at most 200 characters)."
  type Label {
    "The label's key."
    key: String!
    "The label's value."
    value: String!
  }

  "A label, to filter things by or to set on one."
  input LabelInput {
    "The label's key: [a-z0-9_.-]{1,63}."
    key: String!
    "The label's value, at most 200 characters."
    value: String!
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
    "Things matching the filters: exact below 100,000, else 100,000 with totalIsEstimate (at least that many); with no filter (the whole fleet) always exact."
    total: Int!
    "True when total is an estimate (the count stopped at 100,000)."
    totalIsEstimate: Boolean!
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
`;
