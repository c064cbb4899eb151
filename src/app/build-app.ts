import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';
import { redactUrl } from '../config/parsers.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { DomainEventBus } from '../domain/events.js';
import type { RawHorizon } from '../domain/series/series-types.js';
import { browsableHost, listen, portOf } from './listeners.js';
import type { DomainDeps } from '../domain/domain-deps.js';
import type { SigningKeys } from '../domain/auth/signing-keys.js';
import { buildHttpServer } from '../http/build-http-server.js';
import { registerCors } from '../http/cors.js';
import { registerHealthRoutes, type ReadinessCheck } from '../http/service/health-routes.js';
import { registerStartupGate } from '../http/service/startup-gate.js';
import { registerMetricsRoute } from '../http/service/metrics-route.js';
import { registerMqttAuthRoutes } from '../http/service/mqtt-auth-routes.js';
import { registerJwksRoutes } from '../http/service/jwks-routes.js';
import { RateLimiter } from '../http/rate-limiter.js';
import { registerRest } from '../http/rest/rest-plugin.js';
import { registerOpenApi } from '../http/openapi.js';
import { reservedTuidsOf, restRoutePaths } from '../http/route-table.js';
import { refuseReservedTuidClaims } from '../domain/things/uplink-tuid-claims.js';
import { packageVersion } from './package-version.js';
import { ClientTokens } from '../domain/auth/client-tokens.js';
import { UserSessions } from '../domain/auth/user-sessions.js';
import { buildSingleSignOn } from './single-sign-on.js';
import { registerGraphql } from '../http/graphql/graphql-plugin.js';
import { IngestService } from '../ingest/ingest-service.js';
import { ClusterEvents } from '../integration/cluster-events.js';
import { startDataFeed } from '../integration/data-feed.js';
import { MessageRelay, relayKeyName } from '../integration/message-relay.js';
import { SharedRateLimits } from '../integration/shared-rate-limits.js';
import { DynsecCredentials } from '../integration/dynsec-credentials.js';
import { mqttPasswordSealer, unsealSecret } from '../domain/identity/secrets.js';
import { PasswordHashing, type PasswordHasher } from '../domain/identity/password-hashing.js';
import { clusterMessagesFilter } from '../mqtt/topics.js';
import { startAlertFeed } from '../integration/alert-feed.js';
import { mqttCommandDownlink } from '../integration/command-downlink.js';
import { GatewaySightings } from '../domain/gateways/gateway-sightings.js';
import { AlertEngine } from '../domain/alerts/alert-engine.js';
import { InstanceRegistry, liveInstanceIds } from '../domain/deployment/instance-registry.js';
import { retentionDefaultsOf, type RetentionDefaults } from '../domain/retention/retention-rules.js';
import { HeavyWorkGate } from '../domain/workload/heavy-work-gate.js';
import { rawHorizon as rawHorizonOf } from '../domain/retention/retention-service.js';
import { RetentionSweeper } from '../domain/retention/retention-sweeper.js';
import type { SweepReport } from '../domain/retention/retention-types.js';
import { retentionExpiry } from '../store/retention/retention-expiry.js';
import { startCommandResponseMatcher } from '../domain/commands/command-response-matcher.js';
import type { MqttTransport } from '../mqtt/mqtt-transport.js';
import { ingestBatchWriter } from '../store/batch-writer/batch-writer.js';
import { migrateToLatest } from '../store/migrate.js';
import { createStore, type Store } from '../store/store.js';
import { timedStore } from '../store/timed-store.js';
import { registerStudio } from '../http/studio/studio-routes.js';
import { bootstrapIfEmpty, checkBootstrapValues, formatBootstrapReport, type BootstrapReport } from './bootstrap.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { createMetrics, infoGauge, observeRuntime, observedGauge, type Metrics } from '../observability/metrics.js';
import { mqttAuthFailuresOf, startMqtt } from './start-mqtt.js';
import { studioDirectory } from './studio-directory.js';
import { openStore } from './open-store.js';
import { openSigningKeys } from './signing-key-sealing.js';
import { WebhookEndpointView } from '../domain/webhooks/endpoint-view.js';
import type { WebhookOutboxHolder } from '../store/webhook-outbox-writer.js';
import { allowListOf } from '../domain/webhooks/address-rules.js';
import type { WebhookServices } from '../domain/webhooks/webhook-service.js';
import { WebhookSender } from '../integration/webhook-sender.js';
import { WebhookDispatcher } from '../integration/webhook-dispatcher.js';
import { ChannelSender } from '../integration/channel-sender.js';
import { ChannelView } from '../domain/channels/channel-view.js';

export interface AppOptions {
  config: Config;
  clock?: Clock;
  /** Replaces the raw retention horizon (tests of the series' raw/rollup boundary). */
  rawHorizon?: RawHorizon;
  logger?: Logger;
  /** Where the one-time bootstrap credentials are printed (stdout by default, never the log). */
  print?: (text: string) => void;
  /** The built studio to serve (default dist/studio; tests of an unbuilt studio point elsewhere). */
  studioDirectory?: string;
  /** Replaces argon2 under the cap on its work (tests hold it to fill PASSWORD_HASH_CONCURRENCY). */
  argon2?: PasswordHasher;
  /** Wraps the store every part uses (bench:audit: the same platform with a store that records no audit entry). */
  wrapStore?: (store: Store) => Store;
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
  /** Before when an organization's raw messages may be gone; series answer older parts from rollups. */
  readonly rawHorizon: RawHorizon;
  readonly retentionDefaults: RetentionDefaults;
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
 * The composition root: opens and migrates the store, loads signing keys, starts the MQTT side and the ingest
 * pipeline, builds the HTTP server and listens, then bootstraps an empty store. Each collaborator is created here once
 * and passed explicitly. Fails with a ConfigError naming the variable when the database, broker or a port cannot
 * be used; whatever had started is stopped again.
 */
export async function startApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const metrics = createMetrics({ version: packageVersion });
  const events = new DomainEventBus((error, event) => logger.error({ err: error, event }, 'domain event listener failed'));
  checkBootstrapValues(config.bootstrap);

  // Migrations may take longer than a request may wait: on PostgreSQL they run on connections without the timeout.
  if (!config.databaseUrl.startsWith('file:')) {
    const unbounded = await openStore(config.databaseUrl);
    await migrateToLatest(unbounded).finally(() => unbounded.close());
  }
  const database = await openStore(config.databaseUrl, {
    queryTimeoutMs: config.storeTimeoutMs,
    readerThreads: config.sqliteReaderThreads,
  });
  // Stopped in reverse order of starting: HTTP, then MQTT, then the ingest queue, then the store.
  const stoppers: (() => Promise<void>)[] = [() => database.close()];
  // Listeners are bound before the first organization exists (a port in use must fail a start that created
  // nothing); until the end of this function callers are told to come back (503 STARTING, CONNACK 0x88).
  let starting = true;
  const isStarting = () => starting;
  const stop = async () => {
    for (const stopOne of stoppers.splice(0).reverse())
      await stopOne().catch((error: unknown) => logger.error({ err: error }, 'stop failed'));
  };
  try {
    // PostgreSQL was migrated above; SQLite (a file, or :memory:) on the connection it will serve from.
    if (database.dialect === 'sqlite') await migrateToLatest(database);
    // SQLite's reader threads start now, on the migrated store: the first heavy read does not wait for them.
    if (database.driver.dialect === 'sqlite') database.driver.readers?.prestart();
    // Every store call is timed by operation (thingdesk_store_query_duration_seconds), on both dialects.
    // Filled once the webhook endpoints are loaded: the store's writes add their webhook deliveries (the outbox).
    const webhookOutbox: WebhookOutboxHolder = { alertTimeZone: config.alertTimeZone, clock };
    const storeOptions = { exportConnections: config.exportConnections, webhookOutbox };
    const created = createStore(database, storeOptions);
    const store = timedStore(options.wrapStore?.(created) ?? created, (operation) => metrics.storeQuerySeconds.observer(operation));
    // Their private parts are sealed under a key kept outside the store (signing-key-sealing.ts).
    const signingKeys = await openSigningKeys(store.signingKeys, clock, config);
    // With a managed broker, MQTT passwords are also sealed, so the platform can provision them there (docs/mqtt.md).
    const sealMqttPassword = mqttPasswordSealer(config.mqttAuthSealingKey);
    const sealing = sealMqttPassword && { sealMqttPassword };
    // All argon2 work of the process takes turns here (password-hashing.ts); sign-ins past the queue get 503, MQTT
    // CONNECTs wait for theirs (the broker's auth throttle bounds them).
    const passwordHashing = new PasswordHashing(
      { concurrency: config.passwordHashConcurrency, queue: config.passwordHashQueue },
      options.argon2,
      (outcome) => metrics.passwordHashing.inc({ outcome }),
    );

    // No thing may take a TUID that is a fixed path segment where the API takes a TUID (`alerts`), derived from
    // the REST routes before anything can claim a thing (uplinks start below).
    const reservedTuids = reservedTuidsOf(await restRoutePaths(config));
    // Webhooks (SPEC 11): the endpoints in memory, matched at enqueue by every cause's transaction.
    const webhookView = new WebhookEndpointView({ store, events }, (config.webhookRetryScheduleS[0] ?? 0) * 1000);
    await webhookView.start();
    webhookOutbox.targets = webhookView;
    stoppers.push(async () => webhookView.stop());
    // Notification channels (SPEC 13): alert changes write their channels' deliveries to the same outbox, sent by
    // the webhook dispatcher through the channel sender.
    const channelView = new ChannelView(
      { store, events },
      { timeZone: config.alertTimeZone, publicUrl: config.sso.publicUrl },
      {
        minIntervalMs: config.notifyMinIntervalS * 1000,
        digestThreshold: config.notifyDigestThreshold,
        digestWindowMs: config.notifyDigestWindowS * 1000,
      },
    );
    await channelView.start();
    webhookView.channels = channelView;
    webhookOutbox.channels = channelView;
    webhookOutbox.postgres = database.dialect === 'postgres';
    stoppers.push(async () => channelView.stop());
    const commit = ingestBatchWriter(database, { rollups: true, webhooks: webhookView });
    // SQLite: the dispatcher's writes go to the writer thread, so none holds the event loop waiting for its lock.
    if (commit.statements) store.webhooks.routeWrites(commit.statements);
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
    // The instances sharing the broker's uplinks each store a part: live streams here hear the others'
    // (message-relay.ts). Stopped after ingest drained, so the last batches of a stopping instance are relayed too.
    const relay =
      config.mqttUrl === undefined || !config.mqttLiveRelay
        ? undefined
        : new MessageRelay({
            url: config.mqttUrl,
            instanceId,
            events,
            logger,
            // Batches are signed with a key only the instances know, through the store they share.
            key: await store.clusterSecrets.getOrCreate(relayKeyName, clock.now()),
            // Only the instances of the register are taken at their word; a SQLite store has one instance, this one.
            liveInstanceIds: database.dialect === 'postgres' ? () => liveInstanceIds({ store, clock }) : () => Promise.resolve([]),
            maxPacketBytes: config.mqttRelayMaxPacketBytes,
            maxHeld: config.liveOrderMaxHeld,
          });
    if (relay) {
      stoppers.push(() => relay.stop());
      observedGauge(
        metrics,
        'thingdesk_live_relay',
        'Live relay between instances: messages not relayed (too large for a packet, or refused), batches received and refused (signature, origin, age), gaps skipped in live streams, messages held for their predecessor.',
        'figure',
        () => ({ ...relay.counts, ...relay.orderCounts }),
      );
    }
    const alertEngine = new AlertEngine({ store, clock, events, logger, config, instanceId });
    stoppers.push(() => alertEngine.stop());
    const retentionDefaults = retentionDefaultsOf(config);
    const retention = new RetentionSweeper({
      store,
      clock,
      expiry: retentionExpiry(database, commit),
      defaults: retentionDefaults,
      intervalS: config.retentionSweepIntervalS,
      // One process owns a SQLite store; instances sharing PostgreSQL take turns by lease.
      instanceId: database.dialect === 'postgres' ? instanceId : undefined,
      logger,
      onSweep: (report) => recordSweep(metrics, report),
      // Rollup rows are keyed by the hour of their messages' tsmTs (Unix seconds): whole hours before the horizon go.
      expireRollups: (organizationId, beforeHourStartMs, limit) => store.rollups.expire(organizationId, beforeHourStartMs / 1000, limit),
      auditRetentionDays: config.auditRetentionDays,
      webhookLog: { retentionDays: config.webhookLogRetentionDays, expire: (before, limit) => store.webhooks.expireLog(before, limit) },
    });
    // Stopped before the writer closes (it runs its SQLite steps there).
    stoppers.push(() => retention.stop());
    const gatewaySightings = new GatewaySightings({ store, clock, logger });
    const ingest = new IngestService({
      commit: refuseReservedTuidClaims(commit, { store, reservedTuids }),
      gatewaySeen: (from) => gatewaySightings.record(from.organizationId, from.gatewayTuid, from.client),
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
    let brokerCredentials: DynsecCredentials | undefined;
    if (config.mqttAuth === 'mosquitto-dynsec') {
      // Before the consumers and publisher connect: the platform's own user gets its topics from it.
      const key = config.mqttAuthSealingKey!;
      brokerCredentials = new DynsecCredentials({
        url: config.mqttUrl!,
        instanceId,
        feedTemplate: config.integrationTopic,
        activeCredentials: () => store.mqttCredentials.listActiveSealed(),
        unseal: (sealed) => unsealSecret(key, sealed),
        events,
        logger,
        reconcileMs: 10_000,
      });
      const started = brokerCredentials;
      stoppers.push(() => started.stop());
      await started.start().catch((error: unknown) => {
        throw new ConfigError('MQTT_AUTH', `cannot manage the broker's dynamic security through MQTT_URL: ${(error as Error).message}`);
      });
    }
    const mqtt = await startMqtt({
      store,
      clock,
      config,
      logger,
      ingest,
      events,
      instanceId,
      isStarting,
      passwords: passwordHashing.patient(),
    });
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
    if (relay) {
      await relay.start().catch((error: unknown) => {
        throw new ConfigError(
          'MQTT_URL',
          `the platform's user cannot use the relay topic ${clusterMessagesFilter}: ${(error as Error).message}`,
        );
      });
    }
    startCommandResponseMatcher({ store, events });
    const webhookAllow = allowListOf(config.webhookAllowPrivate);
    const webhookSender = new WebhookSender({
      allow: webhookAllow,
      timeoutMs: config.webhookTimeoutMs,
      connections: config.webhookConcurrency,
    });
    const channelSender = new ChannelSender(
      { url: config.smtpUrl, from: config.smtpFrom, timeoutMs: config.webhookTimeoutMs },
      webhookSender,
    );
    stoppers.push(async () => channelSender.close());
    const webhookDispatcher = new WebhookDispatcher(
      {
        store,
        clock,
        events,
        view: webhookView,
        sender: webhookSender,
        channelSender,
        unseal: (sealed) => signingKeys.unsealOther(sealed),
        logger,
        metrics,
      },
      {
        retryScheduleS: config.webhookRetryScheduleS,
        concurrency: config.webhookConcurrency,
        timeoutMs: config.webhookTimeoutMs,
        disableAfterS: config.webhookDisableAfterS,
        soleDispatcher: database.dialect === 'sqlite',
      },
    );
    // New deliveries go from the ingest writer to this dispatcher at their commit, without a claim (OutboxHandOff).
    webhookView.handOff = webhookDispatcher;
    webhookDispatcher.start();
    stoppers.push(() => webhookSender.close());
    stoppers.push(() => webhookDispatcher.stop());
    const webhooks: WebhookServices = {
      seal: (secret) => signingKeys.sealOther(secret),
      allow: webhookAllow,
      secretOverlapS: config.webhookSecretOverlapS,
      sendNow: (endpoint, delivery) => webhookDispatcher.sendNow(endpoint, delivery),
      log: (fields, message) => logger.info(fields, message),
    };
    startAlertFeed({ events, mqtt, timeZone: config.alertTimeZone, logger });
    await alertEngine.start();
    retention.start();

    const checks: ReadinessCheck[] = [
      { name: 'store', check: () => store.ping() },
      { name: 'mqtt', check: () => mqtt.ping() },
    ];
    const clientTokens = new ClientTokens({ store, clock, signingKeys, events });
    const http = buildHttpServer({ logger, metrics, trustProxy: config.trustProxy });
    registerStartupGate(http, isStarting);
    await registerCors(http, config.corsOrigins);
    registerHealthRoutes(http, { checks });
    // With METRICS_PORT, /metrics has a listener of its own (below; open to whoever reaches METRICS_HOST) and is not
    // on the API port; there, without METRICS_TOKEN, it answers only this host (metrics-route.ts).
    if (config.metricsPort === undefined) registerMetricsRoute(http, { metrics, token: config.metricsToken, loopbackOnly: true });
    registerJwksRoutes(http, { signingKeys });
    if (config.mqttAuth === 'http') {
      // The broker asks the platform who may connect, publish and subscribe (docs/mqtt.md).
      const brokerUser = new URL(config.mqttUrl!);
      registerMqttAuthRoutes(http, {
        store,
        clock,
        events,
        passwords: passwordHashing.patient(),
        secret: config.mqttAuthHttpSecret!,
        platform: { username: decodeURIComponent(brokerUser.username), password: decodeURIComponent(brokerUser.password) },
        feedTemplate: config.integrationTopic,
        authFailures: mqttAuthFailuresOf(config),
      });
    }
    await registerOpenApi(http, { restBasePath: config.restBasePath, version: packageVersion });
    const limits = {
      perCaller: new RateLimiter(config.rateLimitPerToken, () => clock.now()),
      perAddress: new RateLimiter(config.rateLimitPerAddress, () => clock.now()),
    };
    if (database.dialect === 'postgres') {
      // Several instances may serve one deployment: the limits are the deployment's (shared-rate-limits.ts).
      const shared = new SharedRateLimits({
        store: store.rateCounts,
        instanceId,
        limiters: { caller: limits.perCaller, address: limits.perAddress },
        intervalMs: 250,
        logger,
      });
      shared.start();
      stoppers.push(() => shared.stop());
    }
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
    const readers = database.driver.dialect === 'sqlite' ? database.driver.readers : undefined;
    if (readers)
      // A backlog of heavy reads shows here before it shows as slow answers.
      observedGauge(
        metrics,
        'thingdesk_sqlite_readers',
        'SQLite reader threads for heavy reads: threads started, threads reading, reads waiting for one.',
        'figure',
        () => readers.load,
      );
    const downlink = mqttCommandDownlink(mqtt);
    // Where series stop reading raw messages and read rollups: the organization's raw retention (tsmTs taken for
    // arrival, which it is for a device with a right clock; docs/decisions.md, Retention and series).
    const rawHorizon: RawHorizon =
      options.rawHorizon ?? ((organizationId) => rawHorizonOf({ store, clock, retentionDefaults }, organizationId));
    // What every domain function receives, built once for both transports.
    const heavyWork = new HeavyWorkGate(config.heavyRequestsPerCaller);
    const domain: DomainDeps = {
      store,
      clock,
      events,
      reservedTuids,
      rawHorizon,
      retentionDefaults,
      passwords: passwordHashing,
      heavyWork,
      webhooks,
      ...sealing,
    };
    // Single sign-on (SPEC section 15): the relying party, provider access tokens and the /auth/oidc routes.
    const sso = buildSingleSignOn({ config, store, clock, events, logger });
    registerRest(http, { ...domain, config, clientTokens, downlink, limits, providerTokens: sso.providerTokens });
    const sessions = new UserSessions({
      store,
      clock,
      signingKeys,
      events,
      passwords: passwordHashing,
      addressLimits: { failuresPerAddress: config.loginFailuresPerAddress, windowMs: 60_000 },
      passwordLogin: config.sso.passwordLogin,
      providerAccess: sso.providerTokens && ((token) => sso.providerTokens!.verifyAsUser(token)),
    });
    const ssoSignIn = sso.register(http, sessions, limits.perAddress);
    const graphql = registerGraphql(http, { ...domain, config, sessions, downlink, limits, metrics, ssoSignIn });
    await registerStudio(http, {
      directory: options.studioDirectory ?? studioDirectory,
      graphqlPath: config.graphqlPath,
      restBasePath: config.restBasePath,
      mapTileUrl: config.mapTileUrl,
      mapLinkUrl: config.mapLinkUrl,
      commandAnswerTimeoutS: config.commandAnswerTimeoutS,
      alertTimeZone: config.alertTimeZone,
      batteryLowPercent: config.batteryLowPercent,
      deviceTimeoutS: config.deviceTimeoutS,
      mqttUrl: config.mqttUrl,
      mqttPort: config.mqttPort,
      logger,
    });
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
    // Only now that every listener (MQTT, HTTP, metrics) is bound: a start that fails on a port creates nothing, so
    // the next start still bootstraps and prints the one-time secrets. Until then the empty store refuses every caller.
    const bootstrap = await bootstrapIfEmpty({ store, clock, ...sealing }, config.bootstrap);
    // A managed broker knows the first gateway credential before the start is reported.
    if (bootstrap) await brokerCredentials?.syncNow();
    const httpPort = portOf(http) ?? config.port;
    if (bootstrap) {
      const studioUrl = `http://${browsableHost(config.host)}:${httpPort}/`;
      (options.print ?? ((text) => process.stdout.write(`${text}\n`)))(formatBootstrapReport(bootstrap, studioUrl));
    }
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
    starting = false;
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
      rawHorizon,
      retentionDefaults,
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
  metrics.rollupRowsCompacted.inc(report.rollupRowsCompacted);
  metrics.retentionSweepSeconds.observe(report.durationMs / 1000);
}
