// The audit log (SPEC 14): who changed what, through what, when. Part of typeDefs (../type-defs.ts).
export const auditSdl = /* GraphQL */ `
  "Who or what acted."
  type AuditActor {
    "user, api_client, cli or system."
    type: String!
    "The user's id, the client's client_id, the CLI's account; null when unknown (a failed sign-in)."
    id: String
    "The user's e-mail (for a failed sign-in: the e-mail tried), the client's client_id."
    label: String
  }

  "What an entry is about."
  type AuditTarget {
    "thing, group, user, api_client, mqtt_credential, organization, session, signing_key, operation."
    type: String!
    "The target's id (a TUID, a group id, a user id ...); null for a whole-organization action such as an import."
    id: String
  }

  "An entry of the organization's audit log; hash chains it to the previous one (docs/audit.md)."
  type AuditEntry {
    "Counts from 1 in each organization's log."
    id: Int!
    "ISO 8601 UTC with milliseconds."
    at: String!
    "Who acted."
    actor: AuditActor!
    "rest, graphql, cli, mqtt or system."
    via: String!
    "The request's id (X-Request-Id), null outside a request."
    requestId: String
    "The caller's address (through TRUST_PROXY), null outside a request."
    address: String
    "group.create, thing.set_installation_status, auth.login_failed, graphql.sendCommands (denied) ..."
    action: String!
    "What the entry is about."
    target: AuditTarget!
    "{field: {from, to}} for each field that changed; never a secret."
    changes: JSON
    "success or denied."
    outcome: String!
    "lowercase hex SHA-256 of the previous entry's hash and this entry's RFC 8785 JSON without hash."
    hash: String!
  }

  "A page of the audit log, newest first."
  type AuditPage {
    "The entries of this page, newest first."
    entries: [AuditEntry!]!
    "Pass as cursor for the next page; null on the last."
    nextCursor: String
  }
`;
