// Notification channels (SPEC section 13): Managers only (they hold addresses and chat URLs). Part of typeDefs (../type-defs.ts).
export const notificationChannelsSdl = /* GraphQL */ `
  "Where alert notifications go: e-mail through SMTP_URL, or a Slack-compatible chat webhook."
  type NotificationChannel {
    "The channel's id (listed in a rule's channels)."
    id: ID!
    "Its name, 1 to 100 characters."
    name: String!
    "email or chat."
    type: String!
    "E-mail: the recipients; null for chat."
    to: [String!]
    "Chat: the incoming webhook POSTed {text}, whole only in createNotificationChannel's answer (it is the chat's secret), afterwards its scheme, host and port followed by /…; null for e-mail."
    url: String
    "When it was created, Unix seconds."
    createdAt: Float!
    "When it last changed, Unix seconds."
    updatedAt: Float!
  }

  "The fields of a channel; name and type are required to create, with to (email) or url (chat); the type never changes."
  input NotificationChannelInput {
    "1 to 100 characters."
    name: String
    "email or chat."
    type: String
    "E-mail: 1 to 50 addresses."
    to: [String!]
    "Chat: a Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat, Discord's /slack path); webhook address rules apply."
    url: String
  }

  "Which channels each built-in alert type notifies."
  input AlertChannelsInput {
    "Channels told when battery low opens or closes."
    batteryLow: [String!]
    "Channels told when gateway connection lost opens or closes."
    gatewayConnectionLost: [String!]
    "Channels told when device connection lost opens or closes."
    deviceConnectionLost: [String!]
  }

  extend type Query {
    "The organization's notification channels by name."
    notificationChannels: [NotificationChannel!]!
    "A channel's delivery log, newest first."
    notificationChannelDeliveries(
      "The channel's id."
      id: ID!
      "1 to 200 (default 50)."
      limit: Int
      "From the previous page."
      cursor: String
    ): WebhookDeliveryPage!
  }

  extend type Mutation {
    "Creates a notification channel."
    createNotificationChannel("The channel's fields." input: NotificationChannelInput!): NotificationChannel!
    "Changes a channel's name, recipients or URL."
    updateNotificationChannel("The channel's id." id: ID!, "The fields to change." input: NotificationChannelInput!): NotificationChannel!
    "Deletes a channel; its waiting notifications are dropped. True on success."
    deleteNotificationChannel("The channel's id." id: ID!): Boolean!
    "Sends a test notification now and answers that attempt."
    testNotificationChannel("The channel's id." id: ID!): WebhookAttempt!
    "Sets which channels the built-in alerts notify (the types given; the others stay). True on success."
    setAlertChannels("The channels per built-in alert type." input: AlertChannelsInput!): Boolean!
  }
`;
