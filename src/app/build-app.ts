import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';
import { redactUrl } from '../config/parsers.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { SigningKeys } from '../domain/identity/signing-keys.js';
import { buildHttpServer } from '../http/build-http-server.js';
import { registerHealthRoutes, type ReadinessCheck } from '../http/routes/health-routes.js';
import { registerJwksRoutes } from '../http/routes/jwks-routes.js';
import { openDatabase, type Database } from '../store/database.js';
import { migrateToLatest } from '../store/migrate.js';
import { createStore, type Store } from '../store/store.js';
import { bootstrapIfEmpty, formatBootstrapReport, type BootstrapReport } from './bootstrap.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';

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
  readonly signingKeys: SigningKeys;
  readonly http: FastifyInstance;
  /** The bound HTTP port (differs from config.port when that is 0). */
  readonly httpPort: number;
  readonly bootstrap: BootstrapReport | undefined;
  /** Stops accepting, lets in-flight requests finish, then closes the store. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The composition root: opens the store and migrates it, loads signing keys, bootstraps an empty store, builds
 * the HTTP server with every route and listens. Each collaborator is created here once and passed explicitly.
 * Fails with a ConfigError naming the variable when the database or a port cannot be used.
 */
export async function startApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const metrics = createMetrics();

  const database = await openStore(config.databaseUrl);
  const stoppers: (() => Promise<void>)[] = [() => database.close()];
  const stop = async () => {
    for (const stopOne of stoppers.splice(0).reverse()) await stopOne();
  };
  try {
    await migrateToLatest(database);
    const store = createStore(database);
    const signingKeys = new SigningKeys(store.signingKeys, clock);
    await signingKeys.start();
    const bootstrap = await bootstrapIfEmpty({ store, clock }, config.bootstrap);
    if (bootstrap) (options.print ?? ((text) => process.stdout.write(`${text}\n`)))(formatBootstrapReport(bootstrap));

    const checks: ReadinessCheck[] = [{ name: 'store', check: () => store.ping() }];
    const http = buildHttpServer({ logger, metrics });
    registerHealthRoutes(http, { checks, metrics });
    registerJwksRoutes(http, { signingKeys });
    await listen(http, config);
    stoppers.push(() => http.close());
    const address = http.server.address();
    const httpPort = typeof address === 'object' && address ? address.port : config.port;
    logger.info({ httpPort, database: redactUrl(config.databaseUrl) }, 'thingdesk listening');
    return { config, clock, logger, metrics, store, signingKeys, http, httpPort, bootstrap, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function openStore(url: string): Promise<Database> {
  let database: Database | undefined;
  try {
    database = await openDatabase(url);
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
