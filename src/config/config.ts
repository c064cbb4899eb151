import { availableParallelism, hostname } from 'node:os';
import ipaddr from 'ipaddr.js';
import { ConfigError } from './config-error.js';
import {
  parseMailFrom,
  parseSmtpUrl,
  parseChoice,
  parseDatabaseUrl,
  parseInteger,
  parseMqttUrl,
  parseNumber,
  parseOriginList,
  parsePathPrefix,
  parsePort,
  parseMapLinkTemplate,
  parseTileUrlTemplate,
  parseTimeZone,
  parseTopicTemplate,
  parseTrustedProxies,
} from './parsers.js';
import { loadSsoConfig, ssoVariables, type SsoConfig } from './sso-config.js';

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/** Values used to create the first organization on an empty store; unset ones are generated. */
export interface BootstrapConfig {
  organizationName?: string;
  email?: string;
  password?: string;
  clientId?: string;
  clientSecret?: string;
  mqttUsername?: string;
  mqttPassword?: string;
}

/** Every setting of the platform, validated. Built only by `loadConfig`; passed explicitly everywhere. */
export interface Config {
  /** HTTP listener (REST, GraphQL, docs, health, metrics). Port 0 picks a free port (tests). */
  port: number;
  host: string;
  /** `file:PATH` for SQLite (WAL), `postgres://...` for PostgreSQL. */
  databaseUrl: string;
  /** External broker; undefined means the embedded broker on `mqttPort`. */
  mqttUrl: string | undefined;
  mqttPort: number;
  /**
   * Embedded broker: the MQTT 5 Receive Maximum it announces, how many QoS 1 uplinks one client may have
   * unacknowledged. Acknowledgements wait for the commit, so this bounds what waits in memory per gateway.
   */
  mqttReceiveMaximum: number;
  /** Embedded broker: largest MQTT packet accepted (bytes), announced as MQTT 5 Maximum Packet Size. */
  mqttMaxPacketSize: number;
  /** Embedded broker: seconds a new connection has to complete its CONNECT. */
  mqttConnectTimeoutS: number;
  /** Embedded broker: how often connected clients' credentials are checked against the store (revocations made elsewhere). */
  mqttCredentialRecheckS: number;
  /** Embedded broker: failed authentications per username and per client address within a minute, before CONNECTs are refused unchecked. */
  mqttAuthFailuresPerUsername: number;
  mqttAuthFailuresPerAddress: number;
  restBasePath: string;
  graphqlPath: string;
  /**
   * Web origins whose pages may call REST and GraphQL (CORS); `*` any origin (no credentials are ever allowed).
   * Empty: same-origin only, no CORS headers at all.
   */
  corsOrigins: string[] | '*';
  /** The studio's map tiles: an http(s) URL template with {z}, {x} and {y}; undefined shows coordinates only. */
  mapTileUrl: string | undefined;
  /** The studio's link to a thing's location on a map service: an http(s) URL template with {lat} and {lon}; undefined shows no link. */
  mapLinkUrl: string | undefined;
  /** After how long the studio shows a command still `sent` as `no answer` (display only: the status stays `sent`). */
  commandAnswerTimeoutS: number;
  /** Live GraphQL subscriptions (WebSocket and SSE) one connection may hold, and one user across connections. */
  graphqlSubscriptionsPerConnection: number;
  graphqlSubscriptionsPerUser: number;
  /** Items one subscription may have waiting for a slow reader; past it the connection is closed. */
  graphqlSubscriptionQueue: number;
  /** Bytes a live connection may have written but unsent; past it the connection is closed. */
  graphqlSendBufferBytes: number;
  /** How often live connections' sessions are checked against the store (sessions ended on other instances). */
  graphqlSessionRecheckS: number;
  /** The cost one GraphQL request may add up to (operation-cost.ts); a costlier one is refused with COST_LIMIT. */
  graphqlCostLimit: number;
  /** Requests of one caller that may read series, exports or the fleet overview at once on one instance. */
  heavyRequestsPerCaller: number;
  /** IANA zone for the local date-times of alert periods. */
  alertTimeZone: string;
  /** Silence, in seconds, after which a gateway / device connection-lost alert opens. */
  gatewayTimeoutS: number;
  deviceTimeoutS: number;
  /** How often the alert engine evaluates silence. */
  alertIntervalS: number;
  /** Battery low opens below `batteryLowPercent` and closes at `batteryOkPercent` or more (hysteresis). */
  batteryLowPercent: number;
  batteryOkPercent: number;
  /** Topic template of the data feed; placeholders {org}, {group}, {tuid}, {tsmId}. */
  integrationTopic: string;
  logLevel: LogLevel;
  /** A listener of its own for `/metrics` (then not served on `port`); undefined: on the API port. */
  metricsPort: number | undefined;
  /** Listen address of the metrics listener; undefined: `host`. */
  metricsHost: string | undefined;
  /** When set, `/metrics` answers only `Authorization: Bearer <metricsToken>`. */
  metricsToken: string | undefined;
  /** Requests per minute allowed per token and per client address. */
  rateLimitPerToken: number;
  rateLimitPerAddress: number;
  /** Organizations whose Managers are the platform's operators: their GraphQL schema adds the deployment's instances. */
  platformOperatorOrganizations: string[];
  /** Failed GraphQL sign-ins per client address within a minute before its sign-ins are refused unchecked (no argon2). */
  loginFailuresPerAddress: number;
  /** argon2 hashes and verifies running at once in this process, and how many more may wait before refusals (503). */
  passwordHashConcurrency: number;
  passwordHashQueue: number;
  /** PostgreSQL: the longest one store statement may take before the request fails with 503 (milliseconds). */
  storeTimeoutMs: number;
  /** PostgreSQL: most message exports streaming at once, each on a connection of its own outside the pool. */
  exportConnections: number;
  /** SQLite: reader threads for heavy reads (series, long message pages, exports, fleet health); 0: on the event loop. */
  sqliteReaderThreads: number;
  /** An export whose client moves no byte for this long is cut (seconds): it would hold its connection forever. */
  exportStallTimeoutS: number;
  /** Memory for compacted days' series points kept rendered (http/rest/rendered-days.ts), megabytes; 0: none. */
  seriesCacheMb: number;
  /** Ingest transactions in flight at once; undefined: 2 (SQLite: one writing, the next waiting in its thread). */
  ingestConcurrency: number | undefined;
  /** Most uplink records one store transaction writes (batches grow with load up to this); undefined: 2000 on SQLite, 1000 on PostgreSQL. */
  ingestBatchSize: number | undefined;
  /** Messages taken from one uplink payload; the excess is dead-lettered. */
  uplinkMaxMessages: number;
  /** Largest message stored (JSON bytes); a larger one is dead-lettered. */
  messageMaxBytes: number;
  /** Reverse proxies whose X-Forwarded-For gives the client address (limits, logs); empty: none. */
  trustProxy: string[];
  /** External broker: the platform's MQTT client id prefix (stable, so its persistent sessions survive restarts). */
  mqttClientId: string;
  /** External broker: consumer sessions of the whole deployment, shared by its instances through leases. */
  mqttConsumerSlots: number;
  /** External broker: uplinks one consumer session may have unacknowledged (its MQTT 5 Receive Maximum). */
  mqttConsumerReceiveMaximum: number;
  /** External broker: the shared subscription group all instances of one deployment join. */
  mqttSharedGroup: string;
  /** External broker: relay each instance's stored uplinks to the others' live streams (message-relay.ts). */
  mqttLiveRelay: boolean;
  /**
   * External broker: the largest relay packet (bytes) when the broker announces no Maximum Packet Size; a broker
   * that announces one smaller is obeyed. A batch is split to fit; a message that fits no packet is not relayed.
   */
  mqttRelayMaxPacketBytes: number;
  /** Live messages held for their predecessor (stored order per thing) across all things; beyond it a gap is skipped. */
  liveOrderMaxHeld: number;
  /** External broker: who keeps its credentials and access rules: the operator (`none`) or the platform. */
  mqttAuth: MqttAuthMode;
  /** MQTT_AUTH=http: the bearer token the broker sends to the platform's authentication endpoints. */
  mqttAuthHttpSecret: string | undefined;
  /** MQTT_AUTH=mosquitto-dynsec: the key that seals MQTT passwords so the platform can provision them again. */
  mqttAuthSealingKey: string | undefined;
  /**
   * The key that seals the token-signing keys in the store (AES-256-GCM, as MQTT passwords are sealed). Required on
   * PostgreSQL, where every instance needs the same one; unset on SQLite: a key file beside the store, made on the
   * first start (src/app/signing-key-sealing.ts).
   */
  signingKeySealingKey: string | undefined;
  /** Days raw messages are kept after arrival, unless an organization sets its own; 0 keeps them forever. */
  messageRetentionDays: number;
  /** AUDIT_RETENTION_DAYS: days audit entries are kept (0: forever); expiry leaves the chain verifiable from an anchor. */
  auditRetentionDays: number;
  /** Days hourly and daily rollups are kept, unless an organization sets its own; 0 keeps them forever. */
  rollupRetentionDays: number;
  /** Days dead letters are kept after arrival; 0 keeps them forever. */
  deadLetterRetentionDays: number;
  /** How often the retention sweep runs (seconds). */
  retentionSweepIntervalS: number;
  /** `thingdesk serve` only: how far V8 lets the heap grow past what its last full collection kept (%); 0: V8 decides. */
  heapGrowingPercent: number;
  /** Single sign-on with OpenID Connect, PUBLIC_URL and AUTH_PASSWORD_LOGIN (SPEC section 15; sso-config.ts). */
  sso: SsoConfig;
  /** Webhooks (SPEC 11): an attempt's time limit (ms). */
  webhookTimeoutMs: number;
  /** Webhooks: the delay before each attempt (seconds), one entry per attempt. */
  webhookRetryScheduleS: number[];
  /** Webhooks: requests in flight per endpoint. */
  webhookConcurrency: number;
  /** Webhooks: an endpoint failing this long (seconds) without a success is disabled. */
  webhookDisableAfterS: number;
  /** Webhooks: CIDRs of private receivers allowed (LAN); metadata addresses stay refused. */
  webhookAllowPrivate: string[];
  /** Webhooks: how long the previous secret keeps signing after a rotation (seconds). */
  webhookSecretOverlapS: number;
  /** Webhooks: days the delivery log is kept; 0 keeps it forever. */
  webhookLogRetentionDays: number;
  /** Notification e-mail (SPEC 13): smtp:// or smtps:// with user and password; undefined: e-mail channels fail their deliveries. */
  smtpUrl: string | undefined;
  /** The From of notification e-mail. */
  smtpFrom: string;
  /** Noise control: seconds between two notifications of one (rule, thing). */
  notifyMinIntervalS: number;
  /** Noise control: openings per rule and channel notified singly in any digest window (sliding); later ones in one digest. */
  notifyDigestThreshold: number;
  /** Noise control: the digest window (seconds; SPEC: 60). */
  notifyDigestWindowS: number;
  bootstrap: BootstrapConfig;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * One row per variable: its default and how it is read. The README's configuration table mirrors this list
 * (a test checks that every variable here is documented there).
 */
const settings = {
  port: { variable: 'PORT', fallback: '8080', read: parsePort },
  host: { variable: 'HOST', fallback: '0.0.0.0', read: parseHost },
  databaseUrl: { variable: 'DATABASE_URL', fallback: 'file:./data/thingdesk.db', read: parseDatabaseUrl },
  mqttUrl: { variable: 'MQTT_URL', fallback: undefined, read: parseMqttUrl },
  mqttPort: { variable: 'MQTT_PORT', fallback: '1883', read: parsePort },
  mqttReceiveMaximum: {
    variable: 'MQTT_RECEIVE_MAXIMUM',
    fallback: '32',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 65_535),
  },
  mqttMaxPacketSize: {
    variable: 'MQTT_MAX_PACKET_SIZE',
    fallback: '262144',
    read: (name: string, raw: string) => parseInteger(name, raw, 1024, 268_435_455),
  },
  mqttConnectTimeoutS: {
    variable: 'MQTT_CONNECT_TIMEOUT_S',
    fallback: '10',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 300),
  },
  mqttCredentialRecheckS: {
    variable: 'MQTT_CREDENTIAL_RECHECK_S',
    fallback: '5',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 3600),
  },
  mqttAuthFailuresPerUsername: {
    variable: 'MQTT_AUTH_FAILURES_PER_USERNAME',
    fallback: '10',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 100_000),
  },
  mqttAuthFailuresPerAddress: {
    variable: 'MQTT_AUTH_FAILURES_PER_ADDRESS',
    fallback: '30',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 100_000),
  },
  restBasePath: { variable: 'REST_BASE_PATH', fallback: '/api/v1', read: parsePathPrefix },
  graphqlPath: { variable: 'GRAPHQL_PATH', fallback: '/v1/graphql', read: parsePathPrefix },
  corsOrigins: { variable: 'CORS_ORIGINS', fallback: '', read: parseOriginList },
  mapTileUrl: { variable: 'MAP_TILE_URL', fallback: undefined, read: parseTileUrlTemplate },
  mapLinkUrl: { variable: 'MAP_LINK_URL', fallback: undefined, read: parseMapLinkTemplate },
  commandAnswerTimeoutS: {
    variable: 'COMMAND_ANSWER_TIMEOUT_S',
    fallback: '600',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 7 * 86_400),
  },
  graphqlSubscriptionsPerConnection: {
    variable: 'GRAPHQL_SUBSCRIPTIONS_PER_CONNECTION',
    fallback: '100',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 10_000),
  },
  graphqlSubscriptionsPerUser: {
    variable: 'GRAPHQL_SUBSCRIPTIONS_PER_USER',
    fallback: '200',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 100_000),
  },
  graphqlSubscriptionQueue: {
    variable: 'GRAPHQL_SUBSCRIPTION_QUEUE',
    fallback: '4000',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 100_000),
  },
  graphqlSendBufferBytes: {
    variable: 'GRAPHQL_SEND_BUFFER_BYTES',
    fallback: '4194304',
    read: (name: string, raw: string) => parseInteger(name, raw, 65_536, 1_073_741_824),
  },
  graphqlSessionRecheckS: {
    variable: 'GRAPHQL_SESSION_RECHECK_S',
    fallback: '5',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 3600),
  },
  graphqlCostLimit: {
    variable: 'GRAPHQL_COST_LIMIT',
    fallback: '50000',
    read: (name: string, raw: string) => parseInteger(name, raw, 1000, 100_000_000),
  },
  heavyRequestsPerCaller: {
    variable: 'HEAVY_REQUESTS_PER_CALLER',
    // The studio draws a thing's charts side by side, one series request each: a catalog message has up to ten
    // numeric fields, so fewer slots would refuse a chart of an ordinary page.
    fallback: '16',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 1000),
  },
  alertTimeZone: { variable: 'ALERT_TIMEZONE', fallback: 'UTC', read: parseTimeZone },
  gatewayTimeoutS: { variable: 'GATEWAY_TIMEOUT_S', fallback: '900', read: positiveSeconds },
  deviceTimeoutS: { variable: 'DEVICE_TIMEOUT_S', fallback: '3600', read: positiveSeconds },
  alertIntervalS: { variable: 'ALERT_INTERVAL_S', fallback: '30', read: positiveSeconds },
  batteryLowPercent: { variable: 'BATTERY_LOW_PERCENT', fallback: '15', read: percent },
  batteryOkPercent: { variable: 'BATTERY_OK_PERCENT', fallback: '20', read: percent },
  integrationTopic: { variable: 'INTEGRATION_TOPIC', fallback: 'thingdesk/{org}/data/{group}/{tuid}/{tsmId}', read: parseTopicTemplate },
  logLevel: { variable: 'LOG_LEVEL', fallback: 'info', read: (name: string, raw: string) => parseChoice(name, raw, logLevels) },
  metricsPort: { variable: 'METRICS_PORT', fallback: undefined, read: parsePort },
  metricsHost: { variable: 'METRICS_HOST', fallback: undefined, read: parseHost },
  metricsToken: { variable: 'METRICS_TOKEN', fallback: undefined, read: parseSecretToken },
  rateLimitPerToken: { variable: 'RATE_LIMIT_PER_TOKEN', fallback: '6000', read: perMinute },
  rateLimitPerAddress: { variable: 'RATE_LIMIT_PER_ADDRESS', fallback: '12000', read: perMinute },
  platformOperatorOrganizations: { variable: 'PLATFORM_OPERATOR_ORGANIZATIONS', fallback: '', read: parseOrganizationIdList },
  loginFailuresPerAddress: {
    variable: 'LOGIN_FAILURES_PER_ADDRESS',
    fallback: '30',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 100_000),
  },
  // Half the cores by default: argon2 runs outside the event loop but on the same machine, and ingest keeps the rest.
  passwordHashConcurrency: {
    variable: 'PASSWORD_HASH_CONCURRENCY',
    fallback: String(Math.max(1, Math.floor(availableParallelism() / 2))),
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 64),
  },
  passwordHashQueue: {
    variable: 'PASSWORD_HASH_QUEUE',
    fallback: '8',
    read: (name: string, raw: string) => parseInteger(name, raw, 0, 10_000),
  },
  storeTimeoutMs: {
    variable: 'STORE_TIMEOUT_MS',
    fallback: '10000',
    read: (name: string, raw: string) => parseInteger(name, raw, 100, 600_000),
  },
  exportConnections: {
    variable: 'EXPORT_CONNECTIONS',
    fallback: '4',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 100),
  },
  sqliteReaderThreads: {
    variable: 'SQLITE_READER_THREADS',
    fallback: '2',
    read: (name: string, raw: string) => parseInteger(name, raw, 0, 16),
  },
  exportStallTimeoutS: {
    variable: 'EXPORT_STALL_TIMEOUT_S',
    fallback: '60',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 3600),
  },
  seriesCacheMb: {
    variable: 'SERIES_CACHE_MB',
    fallback: '64',
    read: (name: string, raw: string) => parseInteger(name, raw, 0, 65_536),
  },
  ingestConcurrency: {
    variable: 'INGEST_CONCURRENCY',
    fallback: undefined,
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 16),
  },
  ingestBatchSize: {
    variable: 'INGEST_BATCH_SIZE',
    fallback: undefined,
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 100_000),
  },
  uplinkMaxMessages: {
    variable: 'UPLINK_MAX_MESSAGES',
    fallback: '1000',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 100_000),
  },
  messageMaxBytes: {
    variable: 'MESSAGE_MAX_BYTES',
    fallback: '65536',
    read: (name: string, raw: string) => parseInteger(name, raw, 256, 16_777_216),
  },
  mqttClientId: {
    variable: 'MQTT_CLIENT_ID',
    fallback: `thingdesk-${hostname()
      .replace(/[^A-Za-z0-9-]/g, '-')
      .slice(0, 40)}`,
    read: parseClientId,
  },
  mqttConsumerSlots: {
    variable: 'MQTT_CONSUMER_SLOTS',
    fallback: '4',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 256),
  },
  mqttConsumerReceiveMaximum: {
    variable: 'MQTT_CONSUMER_RECEIVE_MAXIMUM',
    fallback: '500',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 65_535),
  },
  mqttSharedGroup: { variable: 'MQTT_SHARED_GROUP', fallback: 'thingdesk', read: parseClientId },
  mqttLiveRelay: {
    variable: 'MQTT_LIVE_RELAY',
    fallback: 'on',
    read: (name: string, raw: string) => parseChoice(name, raw, ['on', 'off'] as const) === 'on',
  },
  mqttRelayMaxPacketBytes: {
    variable: 'MQTT_RELAY_MAX_PACKET_BYTES',
    fallback: '1048576',
    read: (name: string, raw: string) => parseInteger(name, raw, 4_096, 268_435_455),
  },
  liveOrderMaxHeld: {
    variable: 'LIVE_ORDER_MAX_HELD',
    fallback: '10000',
    read: (name: string, raw: string) => parseInteger(name, raw, 100, 1_000_000),
  },
  mqttAuth: { variable: 'MQTT_AUTH', fallback: 'none', read: (name: string, raw: string) => parseChoice(name, raw, mqttAuthModes) },
  mqttAuthSealingKey: { variable: 'MQTT_AUTH_SEALING_KEY', fallback: undefined, read: parseSealingKey },
  mqttAuthHttpSecret: { variable: 'MQTT_AUTH_HTTP_SECRET', fallback: undefined, read: parseSecretToken },
  signingKeySealingKey: { variable: 'SIGNING_KEY_SEALING_KEY', fallback: undefined, read: parseSealingKey },
  trustProxy: { variable: 'TRUST_PROXY', fallback: '', read: parseTrustedProxies },
  messageRetentionDays: { variable: 'MESSAGE_RETENTION_DAYS', fallback: '365', read: retentionDays },
  rollupRetentionDays: { variable: 'ROLLUP_RETENTION_DAYS', fallback: '0', read: retentionDays },
  deadLetterRetentionDays: { variable: 'DEAD_LETTER_RETENTION_DAYS', fallback: '30', read: retentionDays },
  auditRetentionDays: { variable: 'AUDIT_RETENTION_DAYS', fallback: '365', read: retentionDays },
  retentionSweepIntervalS: {
    variable: 'RETENTION_SWEEP_INTERVAL_S',
    fallback: '3600',
    read: (name: string, raw: string) => parseInteger(name, raw, 10, 7 * 24 * 3600),
  },
  heapGrowingPercent: {
    variable: 'HEAP_GROWING_PERCENT',
    fallback: '100',
    read: (name: string, raw: string) => parseInteger(name, raw, 0, 300),
  },
  webhookTimeoutMs: {
    variable: 'WEBHOOK_TIMEOUT_MS',
    fallback: '10000',
    read: (name: string, raw: string) => parseInteger(name, raw, 100, 120_000),
  },
  webhookRetryScheduleS: { variable: 'WEBHOOK_RETRY_SCHEDULE', fallback: '0,5,300,1800,7200,18000,36000,36000', read: parseRetrySchedule },
  webhookConcurrency: {
    variable: 'WEBHOOK_CONCURRENCY',
    fallback: '8',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 256),
  },
  webhookDisableAfterS: {
    variable: 'WEBHOOK_DISABLE_AFTER_S',
    fallback: '432000',
    read: (name: string, raw: string) => parseNumber(name, raw, 0.1, 365 * 86_400),
  },
  webhookAllowPrivate: { variable: 'WEBHOOK_ALLOW_PRIVATE', fallback: '', read: parseCidrList },
  webhookSecretOverlapS: {
    variable: 'WEBHOOK_SECRET_OVERLAP_S',
    fallback: '86400',
    read: (name: string, raw: string) => parseNumber(name, raw, 0, 30 * 86_400),
  },
  webhookLogRetentionDays: { variable: 'WEBHOOK_LOG_RETENTION_DAYS', fallback: '30', read: retentionDays },
  smtpUrl: { variable: 'SMTP_URL', fallback: undefined, read: parseSmtpUrl },
  smtpFrom: { variable: 'SMTP_FROM', fallback: 'thingdesk@localhost', read: parseMailFrom },
  notifyMinIntervalS: {
    variable: 'NOTIFY_MIN_INTERVAL_S',
    fallback: '300',
    read: (name: string, raw: string) => parseNumber(name, raw, 0, 86_400),
  },
  notifyDigestThreshold: {
    variable: 'NOTIFY_DIGEST_THRESHOLD',
    fallback: '20',
    read: (name: string, raw: string) => parseInteger(name, raw, 1, 100_000),
  },
  notifyDigestWindowS: {
    variable: 'NOTIFY_DIGEST_WINDOW_S',
    fallback: '60',
    read: (name: string, raw: string) => parseNumber(name, raw, 0.1, 3_600),
  },
} as const;

const bootstrapVariables = {
  organizationName: 'BOOTSTRAP_ORG',
  email: 'BOOTSTRAP_EMAIL',
  password: 'BOOTSTRAP_PASSWORD',
  clientId: 'BOOTSTRAP_CLIENT_ID',
  clientSecret: 'BOOTSTRAP_CLIENT_SECRET',
  mqttUsername: 'BOOTSTRAP_MQTT_USERNAME',
  mqttPassword: 'BOOTSTRAP_MQTT_PASSWORD',
} as const satisfies Record<keyof BootstrapConfig, string>;

/** Every variable the platform reads, in documentation order. */
export const configVariables: readonly string[] = [
  ...Object.values(settings).map((s) => s.variable),
  ...ssoVariables,
  ...Object.values(bootstrapVariables),
];

/**
 * Reads and validates the whole configuration. Throws a ConfigError naming the first bad variable.
 * An empty value counts as unset, so `MQTT_URL=` in a shell means "embedded broker".
 */
export function loadConfig(env: Env): Config {
  const values: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings)) {
    const raw = nonEmpty(env[setting.variable]) ?? setting.fallback;
    values[key] = raw === undefined ? undefined : setting.read(setting.variable, raw);
  }
  const config = { ...(values as unknown as Omit<Config, 'bootstrap' | 'sso'>), sso: loadSsoConfig(env) };
  if (config.batteryOkPercent < config.batteryLowPercent) {
    throw new ConfigError('BATTERY_OK_PERCENT', `must be at least BATTERY_LOW_PERCENT (${config.batteryLowPercent})`);
  }
  if (config.mqttAuth !== 'none' && config.mqttUrl === undefined) {
    throw new ConfigError(
      'MQTT_AUTH',
      `${config.mqttAuth} manages an external broker: set MQTT_URL, or MQTT_AUTH=none for the embedded broker`,
    );
  }
  if (config.mqttAuth === 'http' && config.mqttAuthHttpSecret === undefined) {
    throw new ConfigError('MQTT_AUTH_HTTP_SECRET', 'MQTT_AUTH=http needs the token the broker sends to the platform (docs/mqtt.md)');
  }
  if (config.mqttAuth === 'mosquitto-dynsec' && config.mqttAuthSealingKey === undefined) {
    throw new ConfigError(
      'MQTT_AUTH_SEALING_KEY',
      'MQTT_AUTH=mosquitto-dynsec needs it to provision MQTT passwords on the broker (docs/mqtt.md)',
    );
  }
  const bootstrap: BootstrapConfig = {};
  for (const [key, variable] of Object.entries(bootstrapVariables)) {
    const raw = nonEmpty(env[variable]);
    if (raw !== undefined) bootstrap[key as keyof BootstrapConfig] = raw;
  }
  return { ...config, bootstrap };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function parseHost(name: string, raw: string): string {
  const value = raw.trim();
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(value)) throw new ConfigError(name, `"${raw}" is not a host name or address`);
  return value;
}

/** A shared secret sent as a bearer token: long enough not to be guessed, and no character a header cannot carry. */
function parseSecretToken(name: string, raw: string): string {
  const value = raw.trim();
  if (!/^[\x21-\x7e]{16,512}$/.test(value)) throw new ConfigError(name, 'must be 16 to 512 visible ASCII characters without spaces');
  return value;
}

/**
 * External broker credentials: kept by the operator (`none`), by the platform through Mosquitto's dynamic security,
 * or asked of the platform by the broker over HTTP (`http`: EMQX and brokers with HTTP auth backends).
 */
export const mqttAuthModes = ['none', 'mosquitto-dynsec', 'http'] as const;
export type MqttAuthMode = (typeof mqttAuthModes)[number];

/** WEBHOOK_RETRY_SCHEDULE: 1 to 50 delays in seconds (decimals allowed), comma-separated. */
function parseRetrySchedule(name: string, raw: string): number[] {
  const delays = raw.split(',').map((part) => part.trim());
  if (delays.length > 50) throw new ConfigError(name, 'must list at most 50 delays');
  return delays.map((part) => parseNumber(name, part, 0, 7 * 86_400));
}

/** WEBHOOK_ALLOW_PRIVATE: comma-separated CIDRs (an address alone counts as /32 or /128). */
function parseCidrList(name: string, raw: string): string[] {
  const parts = raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const part of parts) {
    try {
      if (part.includes('/')) ipaddr.parseCIDR(part);
      else ipaddr.parse(part);
    } catch {
      throw new ConfigError(name, `${part} is not a CIDR (e.g. 192.168.1.0/24)`);
    }
  }
  return parts;
}

/** A key sealing secrets at rest: 32 or more random bytes, as base64 or hex (e.g. `openssl rand -base64 32`). */
function parseSealingKey(name: string, raw: string): string {
  const value = raw.trim();
  const bytes = /^[0-9a-fA-F]+$/.test(value) ? value.length / 2 : Buffer.from(value, 'base64').length;
  if (bytes < 32) throw new ConfigError(name, 'must be at least 32 random bytes as hex or base64 (e.g. openssl rand -base64 32)');
  return value;
}

/** Organization ids (the slugs of `thingdesk org list`), comma-separated; empty: none. */
function parseOrganizationIdList(name: string, raw: string): string[] {
  const ids = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const id of ids)
    if (!/^[a-z0-9-]{1,40}$/.test(id)) throw new ConfigError(name, `"${id}" is not an organization id (lowercase letters, digits and -)`);
  return ids;
}

function parseClientId(name: string, raw: string): string {
  const value = raw.trim();
  if (!/^[A-Za-z0-9._-]{1,60}$/.test(value)) throw new ConfigError(name, `"${raw}" must be 1-60 characters of letters, digits and . _ -`);
  return value;
}

function positiveSeconds(name: string, raw: string): number {
  return parseInteger(name, raw, 1, 31 * 24 * 3600);
}

/** Whole days, 0 (forever) to 36,500 (a century): the same bounds as an organization's own setting. */
function retentionDays(name: string, raw: string): number {
  return parseInteger(name, raw, 0, 36_500);
}

function percent(name: string, raw: string): number {
  return parseNumber(name, raw, 0, 100);
}

function perMinute(name: string, raw: string): number {
  return parseInteger(name, raw, 1, 10_000_000);
}
