import type { ColumnType, Generated } from 'kysely';

/**
 * The tables of the store, as Kysely sees them. Times are integer milliseconds since the Unix epoch in both
 * dialects (PostgreSQL `bigint`, parsed back to numbers by the connection), so no code depends on a driver's
 * date handling.
 */
export interface Schema {
  organizations: OrganizationsTable;
  users: UsersTable;
  api_clients: ApiClientsTable;
  mqtt_credentials: MqttCredentialsTable;
  signing_keys: SigningKeysTable;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  /** Lower-cased name: the unique key, so "Acme" and "acme" cannot both exist and login ignores case. */
  name_key: string;
  created_at: number;
}

export interface UsersTable {
  id: string;
  organization_id: string;
  email: string;
  /** Lower-cased e-mail: unique per organization. */
  email_key: string;
  role: string;
  password_hash: string;
  created_at: number;
}

export interface ApiClientsTable {
  client_id: string;
  organization_id: string;
  name: string;
  secret_hash: string;
  created_at: number;
  revoked_at: number | null;
}

export interface MqttCredentialsTable {
  username: string;
  organization_id: string;
  kind: string;
  password_hash: string;
  created_at: number;
  revoked_at: number | null;
}

export interface SigningKeysTable {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
  /** When a newer key took over signing; the key still verifies tokens issued before. */
  retired_at: number | null;
}

/** Columns filled by the database itself; kept for tables added later. */
export type DatabaseGenerated<T> = Generated<T>;
export type ReadOnlyColumn<T> = ColumnType<T, never, never>;
