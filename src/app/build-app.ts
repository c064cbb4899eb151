import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';
import { redactUrl } from '../config/parsers.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { DomainEventBus } from '../domain/events.js';
import { SigningKeys } from '../domain/auth/signing-keys.js';
import { buildHttpServer } from '../http/build-http-server.js';
import { registerHealthRoutes, type ReadinessCheck } from '../http/service/health-routes.js';
import { registerJwksRoutes } from '../http/service/jwks-routes.js';
import { RateLimiter } from '../http/rate-limiter.js';
import { registerRest } from '../http/rest/rest-plugin.js';
import { registerOpenApi } from '../http/openapi.js';
import { reservedTuidsOf, restRoutePaths } from '../http/route-table.js';
import { refuseReservedTuidClaims } from '../domain/things/uplink-tuid-claims.js';
import { packageVersion } from './package-version.js';
import { ClientTokens } from '../domain/auth/client-tokens.js';
import { UserSessions } from '../domain/auth/user-sessions.js';
import { registerGraphql } from '../http/graphql/graphql-plugin.js';
import { IngestService } from '../ingest/ingest-service.js';
import { startDataFeed } from '../integration/data-feed.js';
import { startAlertFeed } from '../integration/alert-feed.js';
import { mqttCommandDownlink } from '../integration/command-downlink.js';
import { AlertEngine } from '../domain/alerts/alert-engine.js';
import { startCommandResponseMatcher } from '../domain/commands/command-response-matcher.js';
import type { MqttTransport } from '../mqtt/mqtt-transport.js';
import { openDatabase, type Database } from '../store/database.js';
import { ingestBatchWriter } from '../store/ingest/ingest-batch.js';
import { migrateToLatest } from '../store/migrate.js';
import { createStore, type Store } from '../store/store.js';
import { bootstrapIfEmpty, formatBootstrapReport, type BootstrapReport } from './bootstrap.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { createMetrics, observedGauge, type Metrics } from '../observability/metrics.js';
import { startMqtt } from './start-mqtt.js';

export interface AppOptions {
  config: Config;
  clock?: Clock;
  logger?: Logger;
  /** Where the one-time bootstrap credentials are printed (stdout by default, never the log). */
  print?: (text: string) => void;
}

/** Everything a running platform holds; built by `startApp`, handed to transports and tests. */
export interface App {
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly store: Store;
  readonly events: DomainEventBus;
  /** The TUIDs no new thing may take: fixed REST path segments where a TUID goes (`alerts`). */
  readonly reservedTuids: ReadonlySet<string>;
  readonly signingKeys: SigningKeys;
  readonly clientTokens: ClientTokens;
  readonly sessions: UserSessions;
  readonly ingest: IngestService;
  /** Opens and closes alert periods; tests call `evaluateSilence()` / `runScheduled()` directly. */
  readonly alertEngine: AlertEngine;
  readonly mqtt: MqttTransport;
  readonly http: FastifyInstance;
  /** The bound HTTP port (differs from config.port when that is 0). */
  readonly httpPort: number;
  readonly bootstrap: BootstrapReport | undefined;
  /** Stops accepting HTTP and MQTT, lets in-flight work finish, then closes the store. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The composition root: opens and migrates the store, loads signing keys, bootstraps an empty store, starts the
 * MQTT side and the ingest pipeline, builds the HTTP server and listens. Each collaborator is created here once
 * and passed explicitly. Fails with a ConfigError naming the variable when the database, broker or a port cannot
 * be used; whatever had started is stopped again.
 */
export async function startApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const metrics = createMetrics();
  const events = new DomainEventBus((error, event) => logger.error({ err: error, event }, 'domain event listener failed'));

  // Migrations may take longer than a request may wait: on PostgreSQL they run on connections without the timeout.
  if (!config.databaseUrl.startsWith('file:')) {
    const unbounded = await openStore(config.databaseUrl);
    await migrateToLatest(unbounded).finally(() => unbounded.close());
  }
  const database = await openStore(config.databaseUrl, config.storeTimeoutMs);
  // Stopped in reverse order of starting: HTTP, then MQTT, then the ingest queue, then the store.
  const stoppers: (() => Promise<void>)[] = [() => database.close()];
  const stop = async () => {
    for (const stopOne of stoppers.splice(0).reverse()) await stopOne().catch((error: unknown) => logger.error({ err: error }, 'stop failed'));
  };
  try {
    // PostgreSQL was migrated above; SQLite (a file, or :memory:) on the connection it will serve from.
    if (database.dialect === 'sqlite') await migrateToLatest(database);
    const store = createStore(database);
    const signingKeys = new SigningKeys(store.signingKeys, clock);
    await signingKeys.start();
    const bootstrap = await bootstrapIfEmpty({ store, clock }, config.bootstrap);
    if (bootstrap) (options.print ?? ((text) => process.stdout.write(`${text}\n`)))(formatBootstrapReport(bootstrap));

    // No thing may take a TUID that is a fixed path segment where the API takes a TUID (`alerts`), derived from
    // the REST routes before anything can claim a thing (uplinks start below).
    const reservedTuids = reservedTuidsOf(await restRoutePaths(config));
    const commit = ingestBatchWriter(database);
    // Stopped after the ingest queue drained and before the store closes (SQLite: ends the writer thread).
    stoppers.push(() => commit.close());
    // Stopped after the ingest queue has drained (its last batches may close alerts), before the store closes.
    const alertEngine = new AlertEngine({ store, clock, events, logger, config });
    stoppers.push(() => alertEngine.stop());
    const ingest = new IngestService({
      commit: refuseReservedTuidClaims(commit, { store, reservedTuids }),
      organizationExists: async (organizationId) => (await store.organizations.get(organizationId)) !== undefined,
      events,
      metrics,
      maxBatch: config.ingestBatchSize,
      limits: { maxMessages: config.uplinkMaxMessages, maxMessageBytes: config.messageMaxBytes },
      // SQLite has one writer (a thread): a second batch waits in its queue, so it never idles while the event loop
      // gets to the answer of the first. On PostgreSQL concurrent batches mostly wait for each other's row locks on
      // the things they both summarize, so one large transaction at a time measured best (docs/mqtt.md).
      maxConcurrent: config.ingestConcurrency ?? (database.dialect === 'sqlite' ? 2 : 1),
    });
    stoppers.push(() => ingest.drain());
    const mqtt = await startMqtt({ store, clock, config, logger, ingest, events });
    stoppers.push(() => mqtt.stop());
    const consumerStats = mqtt.consumerStats?.bind(mqtt);
    if (consumerStats) {
      // An operator sees a backlog building (in flight at the Receive Maximum, lag growing) before the broker drops it.
      observedGauge(metrics, 'thingdesk_mqtt_consumer', 'External broker consumers: slots held by this instance, uplinks in flight, oldest unacknowledged uplink (ms).', 'figure', () => {
        const stats = consumerStats();
        return { slots_held: stats.slotsHeld, in_flight: stats.inFlight, lag_ms: stats.lagMs };
      });
    }
    startDataFeed({ events, mqtt, template: config.integrationTopic, logger });
    startCommandResponseMatcher({ store, events });
    startAlertFeed({ events, mqtt, timeZone: config.alertTimeZone, logger });
    await alertEngine.start();

    const checks: ReadinessCheck[] = [
      { name: 'store', check: () => store.ping() },
      { name: 'mqtt', check: () => mqtt.ping() },
    ];
    const clientTokens = new ClientTokens({ store, clock, signingKeys, events });
    const http = buildHttpServer({ logger, metrics });
    registerHealthRoutes(http, { checks, metrics });
    registerJwksRoutes(http, { signingKeys });
    await registerOpenApi(http, { restBasePath: config.restBasePath, version: packageVersion });
    const limits = { perCaller: new RateLimiter(config.rateLimitPerToken, clock.now), perAddress: new RateLimiter(config.rateLimitPerAddress, clock.now) };
    observedGauge(metrics, 'thingdesk_rate_limiter_keys', 'Callers or addresses counted by a rate limiter this minute (at most 100000 each).', 'limiter', () => ({
      caller: limits.perCaller.size,
      address: limits.perAddress.size,
    }));
    const downlink = mqttCommandDownlink(mqtt);
    registerRest(http, { store, clock, events, reservedTuids, config, clientTokens, downlink, limits });
    const sessions = new UserSessions({ store, clock, signingKeys, events });
    const graphql = registerGraphql(http, { store, clock, events, reservedTuids, config, sessions, downlink, limits });
    await listen(http, config);
    stoppers.push(() => http.close());
    // Closed first (stoppers run in reverse): upgraded WebSocket connections would keep the HTTP server open.
    stoppers.push(() => graphql.close());
    const address = http.server.address();
    const httpPort = typeof address === 'object' && address ? address.port : config.port;
    logger.info({ httpPort, mqttPort: mqtt.port, mqtt: mqtt.mode, database: redactUrl(config.databaseUrl) }, 'thingdesk listening');
    return { config, clock, logger, metrics, store, events, reservedTuids, signingKeys, clientTokens, sessions, ingest, alertEngine, mqtt, http, httpPort, bootstrap, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function openStore(url: string, queryTimeoutMs?: number): Promise<Database> {
  let database: Database | undefined;
  try {
    database = await openDatabase(url, { queryTimeoutMs });
    await database.ping();
    return database;
  } catch (error) {
    await database?.close().catch(() => undefined);
    throw new ConfigError('DATABASE_URL', `cannot open ${redactUrl(url)}: ${(error as Error).message}`);
  }
}

async function listen(http: FastifyInstance, config: Config): Promise<void> {
  try {
    await http.listen({ port: config.port, host: config.host });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new ConfigError('PORT', `port ${config.port} on ${config.host} is already in use`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new ConfigError('HOST', `cannot listen on ${config.host}`);
    throw error;
  }
}
