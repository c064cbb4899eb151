/** SPEC 14: who changed what, through what, and when. The record types of the audit log. */

export type AuditActorType = 'user' | 'api_client' | 'cli' | 'system';
export type AuditVia = 'rest' | 'graphql' | 'cli' | 'mqtt' | 'system';
export type AuditOutcome = 'success' | 'denied';

export interface AuditActor {
  type: AuditActorType;
  /** The user's id, the client's client_id, the CLI's OS user, `system` ... ; null when unknown (a failed sign-in). */
  id: string | null;
  /** The user's e-mail, the client's client_id; for a failed sign-in the e-mail tried. */
  label: string | null;
}

/**
 * Who is calling and through what: built once at the edge (REST, GraphQL, CLI, MQTT ingest, the platform's timers)
 * and carried with every domain call that changes state (audit-context.ts).
 */
export interface AuditContext {
  actor: AuditActor;
  via: AuditVia;
  requestId: string | null;
  /** The caller's address as the HTTP server sees it (TRUST_PROXY honored); null outside HTTP. */
  address: string | null;
}

/**
 * A value the audit log may hold. Deliberately no object type: an entry's fields are flat scalars picked one by one
 * by `auditFields`, so a record holding a secret can never be handed over whole.
 */
export type AuditScalar = string | number | boolean | null;

/**
 * Field names that a secret goes by. `auditFields` refuses them at compile time: a snapshot cannot name a
 * password, a secret, a token or a hash.
 */
type SecretName =
  `${string}${'password' | 'Password' | 'secret' | 'Secret' | 'token' | 'Token' | 'hash' | 'Hash' | 'sealed' | 'Sealed'}${string}`;
type WithoutSecrets<T> = { [K in keyof T]: K extends SecretName ? never : T[K] extends AuditScalar ? T[K] : never };

declare const auditedBrand: unique symbol;
/** A snapshot of a target's audited fields: made only by `auditFields`, the one door into an entry's `changes`. */
export type AuditFields = Readonly<Record<string, AuditScalar>> & { readonly [auditedBrand]: true };

/**
 * The audited fields of a target, named one by one. A secret cannot come in: the field types are scalars (no record
 * passes whole) and a secret's name is a type error (`passwordHash`, `clientSecret`, `token` ...).
 */
export function auditFields<T extends Record<string, AuditScalar>>(fields: T & WithoutSecrets<T>): AuditFields {
  return Object.freeze({ ...fields }) as unknown as AuditFields;
}

/** `{field: {from, to}}` for each field that differs between the before and after snapshots. */
export type AuditChanges = Record<string, { from: AuditScalar; to: AuditScalar }>;

export interface AuditTarget {
  type: string;
  id: string | null;
}

/** An entry as the log stores and shows it (SPEC 14). `id` counts from 1 per organization. */
export interface AuditEntry {
  id: number;
  /** Milliseconds since the epoch; shown and hashed as ISO 8601 UTC with milliseconds. */
  at: number;
  organizationId: string;
  actor: AuditActor;
  via: AuditVia;
  requestId: string | null;
  address: string | null;
  action: string;
  target: AuditTarget;
  changes: AuditChanges | null;
  outcome: AuditOutcome;
  hash: string;
}

/** An entry before the store numbers and chains it. */
export type NewAuditEntry = Omit<AuditEntry, 'id' | 'hash'>;

/** The head of an organization's chain, and the anchor expiry left. */
export interface AuditHead {
  lastId: number;
  lastHash: string;
  anchorId: number;
  anchorHash: string;
}

export type AuditInvalidReason = 'changed' | 'removed' | 'inserted';

export interface AuditVerification {
  ok: boolean;
  checked: number;
  firstInvalid: { id: number; reason: AuditInvalidReason } | null;
}
