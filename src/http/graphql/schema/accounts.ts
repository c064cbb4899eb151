// Sign-in, token refresh and logout, and the signed-in user with the organization and its retention.
// Part of typeDefs (../type-defs.ts), which joins the parts in this order.
export const accountsSdl = /* GraphQL */ `
  "What login needs (seed 001)."
  input LoginInput {
    "The user's e-mail."
    email: String!
    "The name of the user's organization (case is ignored)."
    organizationName: String!
    "The user's password."
    password: String!
  }

  "What refreshToken needs (seed 001)."
  input RefreshTokenInput {
    "The organizationId of the login result."
    organizationId: String!
    "The current refresh token; each works once."
    refreshToken: String!
  }

  "A new session's tokens."
  type LoginResult {
    "JWT for Authorization: Bearer on later requests."
    accessToken: String!
    "Seconds the access token is valid (900)."
    expiresIn: Int!
    "Seconds the refresh token is valid (43200)."
    refreshExpiresIn: Int!
    "JWT that refreshToken exchanges for a new pair, once."
    refreshToken: String!
    "The organization of the signed-in user."
    organizationId: String!
  }

  "A session's new token pair."
  type RefreshTokenResult {
    "JWT for Authorization: Bearer on later requests."
    accessToken: String!
    "Seconds the access token is valid (900)."
    expiresIn: Int!
    "Seconds the refresh token is valid (43200)."
    refreshExpiresIn: Int!
    "The refresh token to use next time; the one sent no longer works."
    refreshToken: String!
  }

  "The outcome of logout."
  type LogoutResult {
    "True: the session has ended and its tokens no longer work."
    success: Boolean!
  }

  "A user of the organization."
  type User {
    "The user's id."
    id: ID!
    "The user's e-mail, unique in the organization."
    email: String!
    "What the user may call."
    role: Role!
    "The user's organization."
    organizationId: String!
  }

  "The caller's organization."
  type Organization {
    "The organization's id."
    id: ID!
    "The organization's name, used to sign in."
    name: String!
    "How long the organization's data is kept."
    retention: Retention!
  }

  "How long an organization's data is kept, counted from each message's arrival on the platform (not its tsmTs)."
  type Retention {
    "Days raw messages are kept, in force: the organization's own setting or the platform's default. 0: forever."
    messageRetentionDays: Int!
    "Days hourly and daily rollups are kept, in force. 0: forever."
    rollupRetentionDays: Int!
    "The organization's own setting for raw messages; null: the platform's default (MESSAGE_RETENTION_DAYS)."
    messageRetentionOverride: Int
    "The organization's own setting for rollups; null: the platform's default (ROLLUP_RETENTION_DAYS)."
    rollupRetentionOverride: Int
  }
`;
