/** The platform the rules benchmarks measure, in the bench's process, on either path. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { startApp, type App, type AppOptions } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { benchBootstrap as bootstrap } from '../ingest/spawn-platform.js';
import { benchSigningKeySealingKey } from '../lib/http-platform.js';
import { withClient } from '../lib/postgres-client.js';

export type Variant = 'embedded' | 'postgres';
export const postgresBase = process.env.BENCH_DATABASE_URL;
export const externalBroker = process.env.BENCH_MQTT_URL || 'mqtt://127.0.0.1:1883';

/** A scratch schema of BENCH_DATABASE_URL for one run, and how to drop it. */
async function scratchSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `rules_bench_${randomBytes(4).toString('hex')}`;
  await withClient(postgresBase!, (c) => c.query(`create schema ${schema}`));
  const url = new URL(postgresBase!);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => void (await withClient(postgresBase!, (c) => c.query(`drop schema if exists ${schema} cascade`))),
  };
}

/**
 * The platform in this process on a fresh store (SQLite and the embedded broker, or a scratch PostgreSQL schema behind
 * the external broker), with `env` on top; `api` POSTs as the bootstrap API client, `storedRows` counts messages.
 */
export async function startPlatform(
  variant: Variant,
  env: Record<string, string> = {},
  options: Pick<AppOptions, 'wrapStore'> = {},
): Promise<{
  app: App;
  dir: string;
  client: mqtt.MqttClient;
  /** POSTs `body`; answers the response's `data`. */
  api: (path: string, body: unknown) => Promise<unknown>;
  /** Stored messages; on the embedded path an acknowledgement is a commit, so `expected` is answered as is. */
  storedRows: (expected: number) => Promise<number>;
  drop: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'thingdesk-bench-rules-'));
  const postgres = variant === 'postgres' ? await scratchSchema() : undefined;
  const config = loadConfig({
    ...bootstrap,
    PORT: '0',
    HOST: '127.0.0.1',
    MQTT_PORT: '0',
    LOG_LEVEL: 'silent',
    DATABASE_URL: postgres?.url ?? `file:${join(dir, 'thingdesk.db')}`,
    ...(postgres && { MQTT_URL: externalBroker, SIGNING_KEY_SEALING_KEY: benchSigningKeySealingKey }),
    ...env,
  });
  const app = await startApp({ config, logger: createLogger('silent'), print: () => undefined, ...options });
  const base = `http://127.0.0.1:${app.httpPort}${config.restBasePath}`;
  const tokenResponse = await fetch(`${base}/auth/client-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: bootstrap.BOOTSTRAP_CLIENT_ID, client_secret: bootstrap.BOOTSTRAP_CLIENT_SECRET }),
  });
  const token = ((await tokenResponse.json()) as { data: { token: string } }).data.token;
  const api = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data?: unknown }).data;
  };
  const client = postgres
    ? await mqtt.connectAsync(externalBroker)
    : await mqtt.connectAsync(`mqtt://127.0.0.1:${app.mqtt.port}`, {
        username: bootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: bootstrap.BOOTSTRAP_MQTT_PASSWORD,
      });
  const storedRows = async (expected: number) =>
    postgres ? Number((await withClient(postgres.url, (c) => c.query('select count(*) as n from messages'))).rows[0].n) : expected;
  return { app, dir, client, api, storedRows, drop: async () => postgres?.drop() };
}
