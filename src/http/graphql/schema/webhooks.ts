// Webhooks (SPEC section 11), for Managers only. Part of typeDefs (../type-defs.ts).
export const webhooksSdl = /* GraphQL */ `
  "The health of a webhook endpoint."
  type WebhookHealth {
    "healthy, failing (since the first failure after a success) or disabled."
    state: String!
    "When it started failing, Unix seconds; null while healthy."
    failingSince: Float
    "The last failed attempt's error."
    lastError: String
    "The last successful attempt, Unix seconds."
    lastSuccessAt: Float
  }

  "An HTTP endpoint that receives the organization's events, signed per Standard Webhooks."
  type Webhook {
    "The endpoint's id."
    id: ID!
    "Where events are POSTed (http or https)."
    url: String!
    "The event types it receives: message.stored, alert.opened, alert.closed, command.answered, thing.changed."
    events: [String!]!
    "Free text."
    description: String
    "Only events of things in these groups; null: any."
    groupIds: [String!]
    "Only events of these things; null: any."
    tuids: [String!]
    "Only message.stored of these message ids; null: any."
    tsmIds: [Int!]
    "Events per POST; over 1, every POST is a batch."
    batchMaxEvents: Int!
    "How long a partial batch waits for more events, in milliseconds."
    batchMaxWaitMs: Int!
    "False: nothing is sent; its deliveries wait."
    enabled: Boolean!
    "How its deliveries fare."
    health: WebhookHealth!
    "When it was created, Unix seconds."
    createdAt: Float!
  }

  "An endpoint with its signing secret, shown at creation and rotation only."
  type WebhookWithSecret {
    "The endpoint."
    webhook: Webhook!
    "The signing secret (whsec_ and base64); keep it where the receiver verifies signatures."
    secret: String!
  }

  "One attempt of a delivery."
  type WebhookAttempt {
    "When it was made, Unix seconds."
    at: Float!
    "The answer's status; null when no answer came."
    statusCode: Int
    "How long it took."
    durationMs: Int!
    "Why it failed; null on success."
    error: String
    "At most 4 KB of the answer's body."
    responseExcerpt: String
  }

  "One delivery: one POST of one event or a batch, retried until it succeeds or the schedule ends."
  type WebhookDelivery {
    "The delivery's id: the webhook-id header of every attempt."
    id: ID!
    "The types of its events."
    eventTypes: [String!]!
    "How many events it carries."
    eventCount: Int!
    "pending, succeeded or failed."
    status: String!
    "When it was queued, Unix seconds."
    createdAt: Float!
    "When a pending delivery is tried next, Unix seconds."
    nextAttemptAt: Float
    "Every attempt, oldest first."
    attempts: [WebhookAttempt!]!
  }

  "A page of the delivery log, newest first."
  type WebhookDeliveryPage {
    "The deliveries."
    deliveries: [WebhookDelivery!]!
    "Pass as cursor for the next page; null on the last."
    nextCursor: String
  }

  "The fields of an endpoint; on update, only those given change."
  input WebhookInput {
    "Where events are POSTed (http or https); a literal private or loopback address is refused."
    url: String
    "The event types it receives."
    events: [String!]
    "Free text."
    description: String
    "Only events of things in these groups."
    groupIds: [String!]
    "Only events of these things."
    tuids: [String!]
    "Only message.stored of these message ids."
    tsmIds: [Int!]
    "Events per POST, 1 to 1000 (default 1)."
    batchMaxEvents: Int
    "How long a partial batch waits, 0 to 60000 ms (default 1000)."
    batchMaxWaitMs: Int
    "False stops sending; true re-enables a disabled endpoint."
    enabled: Boolean
  }
`;
