import { startApp, type App } from '../../src/app/build-app.js';
import { createLogger, type Logger } from '../../src/observability/logger.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { Clock } from '../../src/domain/clock.js';
import type { RawHorizon } from '../../src/domain/series/series-types.js';
import type { PasswordHasher } from '../../src/domain/identity/password-hashing.js';
import { createSqliteUrl } from './databases.js';

/**
 * The first organization of every test app, with known credentials (tests may override any of them; passing
 * an empty string makes the platform generate that value).
 */
export const testBootstrap = {
  BOOTSTRAP_ORG: 'Acme',
  BOOTSTRAP_EMAIL: 'manager@acme.test',
  BOOTSTRAP_PASSWORD: 'manager-password',
  BOOTSTRAP_CLIENT_ID: 'acme-client',
  BOOTSTRAP_CLIENT_SECRET: 'acme-client-secret-0123456789',
  BOOTSTRAP_MQTT_USERNAME: 'acme-gateway',
  BOOTSTRAP_MQTT_PASSWORD: 'acme-gateway-password',
} as const;

/**
 * The key sealing the token-signing keys of every PostgreSQL store the tests start (SIGNING_KEY_SEALING_KEY is
 * required there, and instances sharing a store share it). SQLite stores use the key file beside them, as
 * `npm start` does, so a CLI command on the same file finds the same key. A test's own value (even '') wins.
 */
export const testSigningKeySealingKey = 'dGVzdC1zaWduaW5nLWtleS1zZWFsaW5nLWtleS0wMTIzNDU2Nzg5';

/** `env` with SIGNING_KEY_SEALING_KEY added when it names a PostgreSQL store and sets none. */
export function withTestSealingKey<T extends Record<string, string | undefined>>(env: T): T {
  const url = env['DATABASE_URL'] ?? '';
  if (!/^postgres(ql)?:/.test(url) || env['SIGNING_KEY_SEALING_KEY'] !== undefined) return env;
  return { ...env, SIGNING_KEY_SEALING_KEY: testSigningKeySealingKey };
}

/** A running platform for a test: the real server on port 0, silent logs, and helpers to call it. */
export interface TestApp {
  app: App;
  config: Config;
  /** Absolute URL of a path on this server. */
  url(path: string): string;
  /** URL of the embedded broker (mqtt://127.0.0.1:PORT). */
  mqttUrl: string;
  printed: string[];
  stop(): Promise<void>;
}

/**
 * Starts the platform as `thingdesk serve` would, with ports 0 (tests never collide with real services) and a
 * fresh SQLite file unless `env.DATABASE_URL` says otherwise.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: { clock?: Clock; logger?: Logger; rawHorizon?: RawHorizon; studioDirectory?: string; argon2?: PasswordHasher } = {},
): Promise<TestApp> {
  const config = loadConfig(
    withTestSealingKey({
      ...testBootstrap,
      PORT: '0',
      HOST: '127.0.0.1',
      MQTT_PORT: '0',
      LOG_LEVEL: 'silent',
      DATABASE_URL: createSqliteUrl(),
      ...env,
    }),
  );
  const printed: string[] = [];
  const app = await startApp({
    config,
    clock: options.clock,
    rawHorizon: options.rawHorizon,
    studioDirectory: options.studioDirectory,
    argon2: options.argon2,
    logger: options.logger ?? createLogger('silent'),
    print: (text) => printed.push(text),
  });
  return {
    app,
    config,
    printed,
    url: (path) => `http://127.0.0.1:${app.httpPort}${path}`,
    mqttUrl: `mqtt://127.0.0.1:${app.mqtt.port ?? 0}`,
    stop: () => app.stop(),
  };
}
