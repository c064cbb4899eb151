/**
 * The platform of one bench run: `thingdesk serve` in a process of its own (spawn-platform.ts), on the embedded
 * path (SQLite in a scratch directory, the embedded broker) or, with BENCH_DATABASE_URL, on PostgreSQL and an
 * external broker (a scratch schema and a Mosquitto of the bench's own when the binary is there, else BENCH_MQTT_URL
 * or 127.0.0.1:1883; see bench/ingest/postgres-variant.ts). Its own process, so that its RSS (a target) and its CPU
 * are its own, not shared with the fleet and the bench.
 */
import { rmSync } from 'node:fs';
import mqtt from 'mqtt';
import { externalPlatformEnv, prepareExternalTarget, type ExternalTarget } from '../ingest/postgres-variant.js';
import { benchBootstrap as bootstrap, benchOrganizationId, spawnPlatform } from '../ingest/spawn-platform.js';
import type { PlatformEntry } from '../lib/node-entry.js';
import { untilQuiet } from '../lib/proc-stats.js';

export const externalPath = Boolean(process.env.BENCH_DATABASE_URL);

export interface Platform {
  api: (method: string, path: string, body?: unknown) => Promise<{ data: { id: string } }>;
  client: mqtt.MqttClient;
  /** The fleet's uplink topic. */
  topic: string;
  /** Messages the store holds (PostgreSQL: what the external broker's acknowledgements do not tell). */
  storedMessages(): Promise<number>;
  /** The platform process's highest RSS so far, in MiB (sampled every 200 ms, and the kernel's high-water mark). */
  peakRssMiB(): number;
  stop(): Promise<void>;
}

export async function startPlatform(entry: PlatformEntry, env: Record<string, string> = {}): Promise<Platform> {
  const external: ExternalTarget | undefined = externalPath ? await prepareExternalTarget() : undefined;
  const platform = await spawnPlatform(entry, {
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
    WEBHOOK_TIMEOUT_MS: '10000',
    ...(external && externalPlatformEnv(external)),
    ...env,
  });
  await untilQuiet(platform.process.pid);
  const base = `http://127.0.0.1:${platform.httpPort}/api/v1`;
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
    : await mqtt.connectAsync(`mqtt://127.0.0.1:${platform.mqttPort}`, {
        username: bootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: bootstrap.BOOTSTRAP_MQTT_PASSWORD,
      });
  return {
    api,
    client,
    topic: `thingdesk/${external?.organizationId ?? benchOrganizationId}/up/GW-1`,
    storedMessages: external ? () => external.countRows() : async () => Number.NaN,
    peakRssMiB: () => platform.rss.peakMiB,
    async stop() {
      if (process.env.BENCH_TRACE) process.stdout.write(`  platform's last output:\n${platform.process.output().slice(-3000)}\n`);
      await client.endAsync();
      await platform.stop();
      await external?.cleanup();
      rmSync(platform.workDir, { recursive: true, force: true });
    },
  };
}
