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
  mqtt_client_ids: MqttClientIdsTable;
  signing_keys: SigningKeysTable;
  things: ThingsTable;
  messages: MessagesTable;
  dead_letters: DeadLettersTable;
  groups: GroupsTable;
  installation_history: InstallationHistoryTable;
  command_requests: CommandRequestsTable;
  command_items: CommandItemsTable;
  alerts: AlertsTable;
  gateways: GatewaysTable;
  sessions: SessionsTable;
  login_attempts: LoginAttemptsTable;
  leases: LeasesTable;
  instances: InstancesTable;
  cluster_secrets: ClusterSecretsTable;
  sso_one_time: SsoOneTimeTable;
  audit_entries: AuditEntriesTable;
  audit_heads: AuditHeadsTable;
  organization_thing_counts: OrganizationThingCountsTable;
  thing_labels: ThingLabelsTable;
  rate_counts: RateCountsTable;
  thing_rollups: ThingRollupsTable;
  group_rollups: GroupRollupsTable;
  thing_rollup_days: ThingRollupDaysTable;
  group_rollup_days: GroupRollupDaysTable;
  thing_rollup_day_hours: ThingRollupDayHoursTable;
  group_rollup_day_hours: GroupRollupDayHoursTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  alert_rules: AlertRulesTable;
  alert_rule_states: AlertRuleStatesTable;
  notification_channels: NotificationChannelsTable;
  notify_states: NotifyStatesTable;
  notify_digests: NotifyDigestsTable;
  organization_alert_channels: OrganizationAlertChannelsTable;
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
  /** The identity provider's `sub` once the user has signed in through it (migration 0025). */
  sso_subject: Generated<string | null>;
  /** 1: a Manager who may sign in with a password when AUTH_PASSWORD_LOGIN=false (`thingdesk user create --break-glass`). */
  break_glass: Generated<number>;
}

export interface ApiClientsTable {
  client_id: string;
  organization_id: string;
  name: string;
  secret_hash: string;
  created_at: number;
  revoked_at: number | null;
}

/** The credential that owns an MQTT client id (MQTT_AUTH=http; migration 0020). */
export interface MqttClientIdsTable {
  client_id: string;
  username: string;
  claimed_at: number;
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
  /** The private JWK sealed under SIGNING_KEY_SEALING_KEY or its key file (domain/auth/signing-keys.ts); plain JSON before issue 32. */
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
  /** At most 200 characters; null when unset (migration 0023). */
  name: Generated<string | null>;
  /** The labels as a JSON object of strings, `{}` when none; mirrored row by row in thing_labels (migration 0023). */
  labels: Generated<string>;
}

/** One label of a thing, for the label filter of GET /things (migration 0023). */
export interface ThingLabelsTable {
  organization_id: string;
  label_key: string;
  label_value: string;
  tuid: string;
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
  /** The thing's gateway when the period opened; for `gateway connection lost` the gateway it is about. */
  gateway_tuid: string | null;
  /** Migration 0026: `critical`, `warning` or `info`. */
  severity: string | null;
  /** The alert rule that opened the period; null for built-in alerts. */
  rule_id: string | null;
  /** The value that opened the period (battery low: the `batl`); null when none. */
  value: number | null;
  /** Periods sharing a cause share it (one gateway's silence); null when alone. */
  incident_id: string | null;
  /** The thing's group when the period opened; null for none. */
  group_id: string | null;
  acknowledged_by: string | null;
  acknowledged_at: number | null;
  acknowledgement_note: string | null;
}

/** Migration 0026: the MQTT credential each gateway last published with, written at most every few minutes. */
export interface GatewaysTable {
  organization_id: string;
  gateway_tuid: string;
  mqtt_username: string | null;
  seen_at: number;
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
  /** The provider session (`sid`) and subject (`sub`) a single sign-on session was started from; null otherwise. */
  sso_sid: Generated<string | null>;
  sso_sub: Generated<string | null>;
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

/** Secrets shared by the deployment's instances (the relay's signing key), base64. */
/** Single sign-on's short-lived, use-once entries (sign-in state, one-time codes, logout token ids), migration 0025. */
export interface SsoOneTimeTable {
  id: string;
  payload: string;
  expires_at: number;
}

export interface ClusterSecretsTable {
  name: string;
  secret: string;
  created_at: number;
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

export interface AuditEntriesTable {
  organization_id: string;
  id: number;
  at: number;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  via: string;
  request_id: string | null;
  address: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  changes: string | null;
  outcome: string;
  hash: string;
}

/** Each organization's number of things, kept by triggers on `things` (migration 0034). */
export interface OrganizationThingCountsTable {
  organization_id: string;
  thing_count: number;
}

export interface AuditHeadsTable {
  organization_id: string;
  last_id: number;
  last_hash: string;
  anchor_id: number;
  anchor_hash: string;
}

/** Migration 0022: an organization's webhook receivers (filters as JSON arrays, null: none; secrets sealed). */
export interface WebhookEndpointsTable {
  id: string;
  organization_id: string;
  url: string;
  description: string | null;
  events: string;
  group_ids: string | null;
  tuids: string | null;
  tsm_ids: string | null;
  batch_max_events: number;
  batch_max_wait_ms: number;
  /** 1 or 0. */
  enabled: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  health_state: string;
  failing_since: number | null;
  last_error: string | null;
  last_success_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Migration 0022: the webhook outbox, one row per delivery (one POST: one event, or a batch of them). */
export interface WebhookDeliveriesTable {
  id: string;
  organization_id: string;
  endpoint_id: string;
  /** JSON array of the distinct event types it holds. */
  event_types: string;
  /** JSON array of the events, each `{id, type, timestamp, data}`. */
  events: string;
  event_count: number;
  status: string;
  attempt_count: number;
  next_attempt_at: number;
  locked_until: number | null;
  created_at: number;
  updated_at: number;
}

/** Migration 0022: the webhook delivery log, one row per attempt. */
export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  endpoint_id: string;
  at: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

/** Migration 0027: an organization's alert rules (scope lists and channels as JSON arrays, null: no list). */
export interface AlertRulesTable {
  id: string;
  organization_id: string;
  name: string;
  tsm_id: number;
  field: string;
  op: string;
  threshold: number;
  clear_threshold: number | null;
  for_s: number;
  group_ids: string | null;
  tuids: string | null;
  severity: string;
  /** 1 or 0. */
  enabled: number;
  channels: string;
  created_at: number;
  updated_at: number;
}

/** Migration 0027: a (rule, thing) whose condition holds, waiting out the rule's `for_s` before its period opens. */
export interface AlertRuleStatesTable {
  rule_id: string;
  tuid: string;
  organization_id: string;
  pending_since: number;
  value: number;
}

/** Migration 0031: an organization's notification channels (`recipients` a JSON array for e-mail, `url` for chat). */
export interface NotificationChannelsTable {
  id: string;
  organization_id: string;
  name: string;
  type: string;
  recipients: string | null;
  url: string | null;
  created_at: number;
  updated_at: number;
}

/** Migration 0031: per (rule, thing) what was last notified and when; the deferred deliveries of the latest state. */
export interface NotifyStatesTable {
  rule_key: string;
  tuid: string;
  last_state: string;
  last_at: number;
  deferred_ids: string | null;
  deferred_base: string | null;
}

/** Migrations 0031 and 0032: per (channel, rule) the latest messages sent and the pending digest (a sliding window). */
export interface NotifyDigestsTable {
  channel_id: string;
  rule_key: string;
  /** Migration 0032: the messages sent in the last window, JSON [time rounded up to a 60th of the window, count] pairs. */
  recent_sends: string;
  digest_id: string | null;
  /** Migration 0032: when the pending digest is sent; null: none pending. */
  digest_due_at: number | null;
}

/** Migration 0031: the channels each built-in alert type notifies (a JSON object of id arrays). */
export interface OrganizationAlertChannelsTable {
  organization_id: string;
  channels: string;
}
