// What Managers administer: API clients, the deployment's instances and MQTT credentials.
// Part of typeDefs (../type-defs.ts), which joins the parts in this order.
export const administrationSdl = /* GraphQL */ `
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
`;
