import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';
import { redactUrl } from '../config/parsers.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { DomainEventBus } from '../domain/events.js';
import { SigningKeys } from '../domain/auth/signing-keys.js';
import { buildHttpServer } from '../http/build-http-server.js';
import { registerCors } from '../http/cors.js';
import { registerHealthRoutes, type ReadinessCheck } from '../http/service/health-routes.js';
import { registerMetricsRoute } from '../http/service/metrics-route.js';
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
import { ClusterEvents } from '../integration/cluster-events.js';
import { startDataFeed } from '../integration/data-feed.js';
import { startAlertFeed } from '../integration/alert-feed.js';
import { mqttCommandDownlink } from '../integration/command-downlink.js';
import { AlertEngine } from '../domain/alerts/alert-engine.js';
import { InstanceRegistry } from '../domain/deployment/instance-registry.js';
import { retentionDefaultsOf } from '../domain/retention/retention-rules.js';
import { RetentionSweeper } from '../domain/retention/retention-sweeper.js';
import type { SweepReport } from '../domain/retention/retention-types.js';
import { retentionExpiry } from '../store/retention/retention-expiry.js';
import { startCommandResponseMatcher } from '../domain/commands/command-response-matcher.js';
import type { MqttTransport } from '../mqtt/mqtt-transport.js';
import { openDatabase, type Database } from '../store/database.js';
import { ingestBatchWriter } from '../store/ingest/ingest-batch.js';
import { migrateToLatest } from '../store/migrate.js';
import { createStore, type Store } from '../store/store.js';
import { bootstrapIfEmpty, formatBootstrapReport, type BootstrapReport } from './bootstrap.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { createMetrics, infoGauge, observeRuntime, observedGauge, type Metrics } from '../observability/metrics.js';
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
  /** Removes data past its retention; tests call `sweep()` directly. */
  readonly retention: RetentionSweeper;
  readonly mqtt: MqttTransport;
  readonly http: FastifyInstance;
  /** The bound HTTP port (differs from config.port when that is 0). */
  readonly httpPort: number;
  /** This process's name in the deployment (leases, instance register, broker client id). */
  readonly instanceId: string;
  /** The metrics listener's bound port (METRICS_PORT, which may be 0); undefined when /metrics is on the API port. */
  readonly metricsPort: number | undefined;
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
  const metrics = createMetrics({ version: packageVersion });
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
    for (const stopOne of stoppers.splice(0).reverse())
      await stopOne().catch((error: unknown) => logger.error({ err: error }, 'stop failed'));
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
    // One name for this process wherever the deployment sees it: its leases (alert engine, consumer slots), its
    // broker client id, its row in the instance register.
    const instanceId = `${config.mqttClientId}-${randomBytes(4).toString('hex')}`;
    if (database.dialect === 'postgres') {
      // Several instances may share this store: their live streams and caches follow each other's events.
      const cluster = new ClusterEvents({ databaseUrl: config.databaseUrl, events, instanceId, logger });
      await cluster.start();
      stoppers.push(() => cluster.stop());
    }
    const alertEngine = new AlertEngine({ store, clock, events, logger, config, instanceId });
    stoppers.push(() => alertEngine.stop());
    const retention = new RetentionSweeper({
      store,
      clock,
      expiry: retentionExpiry(database, commit),
      defaults: retentionDefaultsOf(config),
      intervalS: config.retentionSweepIntervalS,
      // One process owns a SQLite store; instances sharing PostgreSQL take turns by lease.
      instanceId: database.dialect === 'postgres' ? instanceId : undefined,
      logger,
      onSweep: (report) => recordSweep(metrics, report),
      // Rollup expiry: connect the rollups store's expireRollups here when it exists.
      expireRollups: undefined,
    });
    // Stopped before the writer closes (it runs its SQLite steps there).
    stoppers.push(() => retention.stop());
    const ingest = new IngestService({
      commit: refuseReservedTuidClaims(commit, { store, reservedTuids }),
      organizationExists: async (organizationId) => (await store.organizations.get(organizationId)) !== undefined,
      events,
      metrics,
      // SQLite writes faster per row in larger transactions (each row touches a different index page); PostgreSQL
      // keeps two smaller ones in flight (below), so that one commits while the next is written (docs/mqtt.md).
      maxBatch: config.ingestBatchSize ?? (database.dialect === 'sqlite' ? 2000 : 1000),
      limits: { maxMessages: config.uplinkMaxMessages, maxMessageBytes: config.messageMaxBytes },
      // SQLite has one writer (a thread): a second batch waits in its queue, so it never idles while the event loop
      // gets to the answer of the first. On PostgreSQL two transactions overlap: they serialize only on the rows of
      // things both summarize (taken in TUID order, so they never deadlock), and one's message insert and commit
      // run while the other waits (docs/mqtt.md).
      maxConcurrent: config.ingestConcurrency ?? 2,
    });
    stoppers.push(() => ingest.drain());
    const mqtt = await startMqtt({ store, clock, config, logger, ingest, events, instanceId });
    stoppers.push(() => mqtt.stop());
    const consumerStats = mqtt.consumerStats?.bind(mqtt);
    if (consumerStats) {
      // An operator sees a backlog building (in flight at the Receive Maximum, lag growing) before the broker drops it.
      observedGauge(
        metrics,
        'thingdesk_mqtt_consumer',
        'External broker consumers: slots held by this instance, uplinks in flight, oldest unacknowledged uplink (ms).',
        'figure',
        () => {
          const stats = consumerStats();
          return { slots_held: stats.slotsHeld, in_flight: stats.inFlight, lag_ms: stats.lagMs };
        },
      );
    }
    startDataFeed({ events, mqtt, template: config.integrationTopic, logger });
    startCommandResponseMatcher({ store, events });
    startAlertFeed({ events, mqtt, timeZone: config.alertTimeZone, logger });
    await alertEngine.start();
    retention.start();

    const checks: ReadinessCheck[] = [
      { name: 'store', check: () => store.ping() },
      { name: 'mqtt', check: () => mqtt.ping() },
    ];
    const clientTokens = new ClientTokens({ store, clock, signingKeys, events });
    const http = buildHttpServer({ logger, metrics, trustProxy: config.trustProxy });
    await registerCors(http, config.corsOrigins);
    registerHealthRoutes(http, { checks });
    // With METRICS_PORT, /metrics has a listener of its own (below) and is not on the API port.
    if (config.metricsPort === undefined) registerMetricsRoute(http, { metrics, token: config.metricsToken });
    registerJwksRoutes(http, { signingKeys });
    await registerOpenApi(http, { restBasePath: config.restBasePath, version: packageVersion });
    const limits = {
      perCaller: new RateLimiter(config.rateLimitPerToken, clock.now),
      perAddress: new RateLimiter(config.rateLimitPerAddress, clock.now),
    };
    observedGauge(
      metrics,
      'thingdesk_rate_limiter_keys',
      'Callers or addresses counted by a rate limiter this minute (at most 100000 each).',
      'limiter',
      () => ({
        caller: limits.perCaller.size,
        address: limits.perAddress.size,
      }),
    );
    const downlink = mqttCommandDownlink(mqtt);
    registerRest(http, { store, clock, events, reservedTuids, config, clientTokens, downlink, limits });
    const sessions = new UserSessions({ store, clock, signingKeys, events });
    const graphql = registerGraphql(http, { store, clock, events, reservedTuids, config, sessions, downlink, limits, metrics });
    observeRuntime(metrics, {
      liveSubscriptions: () => graphql.liveSubscriptions(),
      openAlerts: () => alertEngine.activeAlertCounts(),
      mqttConnections: () => mqtt.connectionsByKind?.() ?? {},
    });
    await listen(http, config.port, config.host, { port: 'PORT', host: 'HOST' });
    stoppers.push(() => http.close());
    let metricsPort: number | undefined;
    if (config.metricsPort !== undefined) {
      const metricsHttp = buildHttpServer({ logger, metrics });
      registerMetricsRoute(metricsHttp, { metrics, token: config.metricsToken });
      await listen(metricsHttp, config.metricsPort, config.metricsHost ?? config.host, { port: 'METRICS_PORT', host: 'METRICS_HOST' });
      stoppers.push(() => metricsHttp.close());
      metricsPort = portOf(metricsHttp);
    }
    // Closed first (stoppers run in reverse): upgraded WebSocket connections would keep the HTTP server open.
    stoppers.push(() => graphql.close());
    const httpPort = portOf(http) ?? config.port;
    // Only PostgreSQL is shared by several instances. On SQLite a heartbeat would be a write on the main
    // connection, which waits synchronously (blocking the event loop) whenever the ingest writer holds the lock.
    if (database.dialect === 'postgres') {
      const registry = new InstanceRegistry(
        { store, clock, logger },
        { id: instanceId, version: packageVersion, host: hostname(), startedAt: clock.now() },
        () => {
          const stats = consumerStats?.();
          return {
            mqtt: mqtt.mode,
            liveSubscriptions: graphql.liveSubscriptions(),
            ...(stats && { consumer: { slots: stats.slots, inFlight: stats.inFlight, lagMs: stats.lagMs } }),
          };
        },
      );
      await registry.start();
      stoppers.push(() => registry.stop());
    }
    // Its version and Node's are in thingdesk_build_info; `instance` is Prometheus' own label for the scrape target.
    infoGauge(metrics, 'thingdesk_instance_info', 'This instance: its id in the deployment (thingdesk status).', {
      instance_id: instanceId,
    });
    logger.info(
      { httpPort, metricsPort, mqttPort: mqtt.port, mqtt: mqtt.mode, instanceId, database: redactUrl(config.databaseUrl) },
      'thingdesk listening',
    );
    return {
      config,
      clock,
      logger,
      metrics,
      store,
      events,
      reservedTuids,
      signingKeys,
      clientTokens,
      sessions,
      ingest,
      alertEngine,
      retention,
      mqtt,
      http,
      httpPort,
      instanceId,
      metricsPort,
      bootstrap,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function recordSweep(metrics: Metrics, report: SweepReport): void {
  metrics.retentionExpired.inc({ kind: 'messages' }, report.messages);
  metrics.retentionExpired.inc({ kind: 'rollups' }, report.rollups);
  metrics.retentionExpired.inc({ kind: 'dead_letters' }, report.deadLetters);
  metrics.retentionExpired.inc({ kind: 'command_history' }, report.commandHistory);
  metrics.retentionPartitionsDropped.inc(report.partitionsDropped);
  metrics.retentionSweepSeconds.observe(report.durationMs / 1000);
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

/** Listens, or fails with a ConfigError naming the variable of the port or host that could not be used. */
async function listen(http: FastifyInstance, port: number, host: string, variables: { port: string; host: string }): Promise<void> {
  try {
    await http.listen({ port, host });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new ConfigError(variables.port, `port ${port} on ${host} is already in use`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new ConfigError(variables.host, `cannot listen on ${host}`);
    throw error;
  }
}

function portOf(http: FastifyInstance): number | undefined {
  const address = http.server.address();
  return typeof address === 'object' && address ? address.port : undefined;
}
