import type { Generated } from 'kysely';

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
  things: ThingsTable;
  messages: MessagesTable;
  dead_letters: DeadLettersTable;
  groups: GroupsTable;
  installation_history: InstallationHistoryTable;
  command_requests: CommandRequestsTable;
  command_items: CommandItemsTable;
  alerts: AlertsTable;
  sessions: SessionsTable;
  login_attempts: LoginAttemptsTable;
  leases: LeasesTable;
  instances: InstancesTable;
  rate_counts: RateCountsTable;
  thing_rollups: ThingRollupsTable;
  group_rollups: GroupRollupsTable;
  thing_rollup_days: ThingRollupDaysTable;
  group_rollup_days: GroupRollupDaysTable;
  thing_rollup_day_hours: ThingRollupDayHoursTable;
  group_rollup_day_hours: GroupRollupDayHoursTable;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  /** Lower-cased name: the unique key, so "Acme" and "acme" cannot both exist and login ignores case. */
  name_key: string;
  created_at: number;
  /** The organization's own retention of raw messages, in days (0: forever); null: MESSAGE_RETENTION_DAYS. */
  message_retention_days: number | null;
  /** The organization's own retention of rollups, in days (0: forever); null: ROLLUP_RETENTION_DAYS. */
  rollup_retention_days: number | null;
  /** PostgreSQL: the arrival (ms) before which the retention sweep has removed the organization's messages. */
  messages_cleared_before: number | null;
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
  /** With MQTT_AUTH=mosquitto-dynsec: the password sealed under MQTT_AUTH_SEALING_KEY (migration 0013). */
  sealed_password: Generated<string | null>;
}

export interface SigningKeysTable {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
  /** When a newer key took over signing; the key still verifies tokens issued before. */
  retired_at: number | null;
}

export interface ThingsTable {
  tuid: string;
  organization_id: string;
  /** null: in no group ("unassigned" in every response). */
  group_id: string | null;
  installation_status: string;
  created_at: number;
  last_ts: number | null;
  last_gateway_tuid: string | null;
  battery_level: number | null;
  battery_ts: number | null;
  version: string | null;
  version_ts: number | null;
  lat: number | null;
  lon: number | null;
  location_ts: number | null;
  last_heard_at: number | null;
  last_heard_gateway_tuid: string | null;
  /** Messages of the thing stored so far on PostgreSQL, the number of the newest (migration 0016); 0 on SQLite. */
  message_seq: Generated<number>;
  /** When message number `message_seq` was committed, ms; null before the first. */
  message_seq_at: Generated<number | null>;
  /** Unix seconds, an hour's start: rollups before it are stored, from it on they come from raw messages (migration 0018). */
  rollup_watermark: Generated<number>;
}

export interface MessagesTable {
  tuid: string;
  tsm_ts: number;
  tsm_id: number;
  /** First 16 hex digits of the SHA-256 of the message's JSON: tells redeliveries from distinct messages. */
  fingerprint: string;
  organization_id: string;
  tsm_ev: number | null;
  gateway_tuid: string | null;
  /** The thing's group when the message arrived; null for none. */
  group_id: string | null;
  received_at: number;
  /**
   * The message as served (JSON text): as received, with `deploymentGroupId` appended at ingest (migration 0008),
   * so a message list reads this column alone.
   */
  body: string;
  /** JSON array of catalog warnings when the message broke a known id's rules; null when clean. */
  problems: string | null;
}

export interface DeadLettersTable {
  id: Generated<number>;
  organization_id: string | null;
  received_at: number;
  /** Where it came from, e.g. the MQTT topic. */
  source: string;
  /** Who sent it, e.g. the MQTT username. */
  client: string | null;
  reason: string;
  payload: string;
}

export interface GroupsTable {
  organization_id: string;
  group_id: string;
  description: string | null;
  created_at: number;
}

export interface InstallationHistoryTable {
  id: Generated<number>;
  organization_id: string;
  tuid: string;
  installation_status: string;
  /** Milliseconds. */
  timestamp: number;
  /** client_id, a user's e-mail, or `uplink` for the first sighting. */
  responsible: string;
}

export interface CommandRequestsTable {
  id: Generated<number>;
  organization_id: string;
  tuid: string;
  timestamp: number;
  responsible: string;
}

export interface CommandItemsTable {
  request_id: number;
  position: number;
  tuid: string;
  transaction_id: number | null;
  /** The command as sent (with tsmTs and tsmDstTuid), JSON. */
  body: string;
  /** sent, applied or unavailable. */
  status: string;
  /** The device's response message, JSON. */
  response: string | null;
  responded_at: number | null;
}

export interface AlertsTable {
  id: Generated<number>;
  organization_id: string;
  tuid: string;
  alert_type: string;
  opened_at: number;
  closed_at: number | null;
  /** The gateway a `gateway connection lost` period is about; null for the other types. */
  gateway_tuid: string | null;
}

export interface SessionsTable {
  id: string;
  organization_id: string;
  user_id: string;
  /** The id (jti) of the only refresh token of this session that may still be used. */
  refresh_jti: string;
  created_at: number;
  refreshed_at: number;
  /** When the current refresh token expires; the session cannot outlive it. */
  expires_at: number;
  ended_at: number | null;
  end_reason: string | null;
}

export interface LoginAttemptsTable {
  /** Lower-cased organization name and e-mail: throttling applies whether or not the account exists. */
  account_key: string;
  failures: number;
  first_failure_at: number;
  blocked_until: number | null;
}

/** A named cluster lease (e.g. `alert-engine`): held by `holder` until `expires_at` (ms, platform clock) unless renewed. */
export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}

export interface InstancesTable {
  id: string;
  version: string;
  host: string;
  started_at: number;
  heartbeat_at: number;
  /** JSON of the instance's figures at its last heartbeat. */
  details: string;
}

export interface RateCountsTable {
  window_start: number;
  limiter: string;
  key: string;
  instance_id: string;
  count: number;
}

/** The figures of one hourly rollup bucket (migration 0011). */
export interface RollupFiguresColumns {
  tsm_id: number;
  field: string;
  /** Unix seconds, a multiple of 3600 (UTC), of the messages' tsmTs. */
  hour_start: number;
  count: number;
  min: number;
  max: number;
  sum: number;
  first: number;
  first_ts: number;
  last: number;
  last_ts: number;
}

export interface ThingRollupsTable extends RollupFiguresColumns {
  tuid: string;
  organization_id: string;
}

export interface GroupRollupsTable extends RollupFiguresColumns {
  organization_id: string;
  /** The group at arrival; `unassigned` for things in no group. */
  group_id: string;
}

/** A compacted UTC day of a series (migration 0017): the day's figures (its hours are in the `_day_hours` table). */
export interface RollupDayColumns extends Omit<RollupFiguresColumns, 'hour_start'> {
  /** Unix seconds, a multiple of 86400 (UTC). */
  day_start: number;
  /** Hours of the day with readings (entries of its packed hours). */
  hours: number;
  /** A token written anew with the day's packed hours each time (migration 0019); null only on a store older than it. */
  hours_etag: string | null;
}

export interface ThingRollupDaysTable extends RollupDayColumns {
  tuid: string;
  organization_id: string;
}

export interface GroupRollupDaysTable extends RollupDayColumns {
  organization_id: string;
  group_id: string;
}

/** A compacted UTC day's hours, packed (store/rollups/hourly-codec.ts). */
export interface ThingRollupDayHoursTable {
  tuid: string;
  organization_id: string;
  tsm_id: number;
  field: string;
  day_start: number;
  hourly: Uint8Array;
}

export interface GroupRollupDayHoursTable {
  organization_id: string;
  group_id: string;
  tsm_id: number;
  field: string;
  day_start: number;
  hourly: Uint8Array;
}
