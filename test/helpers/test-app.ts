import { startApp, type App } from '../../src/app/build-app.js';
import { createLogger } from '../../src/app/logger.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { Clock } from '../../src/domain/clock.js';
import { createSqliteUrl } from './databases.js';

/** A running platform for a test: the real server on port 0, silent logs, and helpers to call it. */
export interface TestApp {
  app: App;
  config: Config;
  /** Absolute URL of a path on this server. */
  url(path: string): string;
  printed: string[];
  stop(): Promise<void>;
}

/**
 * Starts the platform as `thingdesk serve` would, with ports 0 (tests never collide with real services) and a
 * fresh SQLite file unless `env.DATABASE_URL` says otherwise.
 */
export async function startTestApp(env: Record<string, string> = {}, options: { clock?: Clock } = {}): Promise<TestApp> {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'silent', DATABASE_URL: createSqliteUrl(), ...env });
  const printed: string[] = [];
  const app = await startApp({ config, clock: options.clock, logger: createLogger('silent'), print: (text) => printed.push(text) });
  return {
    app,
    config,
    printed,
    url: (path) => `http://127.0.0.1:${app.httpPort}${path}`,
    stop: () => app.stop(),
  };
}
