/**
 * The platform of one bench run, in this process: on the embedded path (SQLite in a scratch directory, the embedded
 * broker) or, with BENCH_DATABASE_URL, on PostgreSQL and an external broker (a scratch schema and a Mosquitto of the
 * bench's own when the binary is there, else BENCH_MQTT_URL or 127.0.0.1:1883; see bench/ingest/postgres-variant.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { startApp, type App } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { externalPlatformEnv, prepareExternalTarget, type ExternalTarget } from '../ingest/postgres-variant.js';
import { benchBootstrap as bootstrap } from '../ingest/spawn-platform.js';

export const externalPath = Boolean(process.env.BENCH_DATABASE_URL);

export interface Platform {
  app: App;
  api: (method: string, path: string, body?: unknown) => Promise<{ data: { id: string } }>;
  client: mqtt.MqttClient;
  /** The fleet's uplink topic. */
  topic: string;
  /** Messages the store holds (PostgreSQL: what the external broker's acknowledgements do not tell). */
  storedMessages(): Promise<number>;
  stop(): Promise<void>;
}

export async function startPlatform(env: Record<string, string> = {}): Promise<Platform> {
  const dir = mkdtempSync(join(tmpdir(), 'thingdesk-bench-webhooks-'));
  const external: ExternalTarget | undefined = externalPath ? await prepareExternalTarget() : undefined;
  const storeEnv = external
    ? {
        ...externalPlatformEnv(external),
        SIGNING_KEY_SEALING_KEY: randomBytes(32).toString('base64'),
      }
    : { DATABASE_URL: `file:${join(dir, 'thingdesk.db')}`, MQTT_PORT: '0' };
  const config = loadConfig({
    ...bootstrap,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
    WEBHOOK_TIMEOUT_MS: '10000',
    ...storeEnv,
    ...env,
  });
  const app = await startApp({ config, logger: createLogger('silent'), print: () => undefined });
  const base = `http://127.0.0.1:${app.httpPort}${config.restBasePath}`;
  const tokenResponse = await fetch(`${base}/auth/client-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: bootstrap.BOOTSTRAP_CLIENT_ID, client_secret: bootstrap.BOOTSTRAP_CLIENT_SECRET }),
  });
  const token = ((await tokenResponse.json()) as { data: { token: string } }).data.token;
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { data: { id: string } };
  };
  const client = external
    ? await mqtt.connectAsync(external.mqttUrl, { clientId: `${external.mqttClientId}-fleet` })
    : await mqtt.connectAsync(`mqtt://127.0.0.1:${app.mqtt.port}`, {
        username: bootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: bootstrap.BOOTSTRAP_MQTT_PASSWORD,
      });
  return {
    app,
    api,
    client,
    topic: `thingdesk/${external?.organizationId ?? 'bench'}/up/GW-1`,
    storedMessages: external ? () => external.countRows() : async () => Number.NaN,
    async stop() {
      await client.endAsync();
      await app.stop();
      await external?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
