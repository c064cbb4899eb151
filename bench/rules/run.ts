/**
 * `npm run bench:rules` (issue 35): what alert rules cost ingest on the embedded path (SQLite, the embedded broker;
 * the platform in this process). Arrays of 10 uplinks of the message id the rules read, as fast as the platform
 * acknowledges them (50 publishes in flight), for BENCH_MESSAGES (20000) messages; with no rule and with 100 enabled
 * rules on that message id (every one read for every message, none crossed). BENCH_CHURN=1 makes ten of them open and
 * close periods on most messages (alert churn: every transition is a store write today, so ingest suffers; see
 * docs/decisions.md). Each figure is the median of BENCH_RUNS runs (3), in this invocation.
 *
 * Not measured here: PostgreSQL + Mosquitto, and the time from an uplink's acknowledgement to an e-mail (the
 * notification channels are not built yet); see the closing note.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { startApp, type App } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { benchBootstrap as bootstrap } from '../ingest/spawn-platform.js';

const numberFromEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const runs = numberFromEnv('BENCH_RUNS', 3);
const messages = numberFromEnv('BENCH_MESSAGES', 20_000);
const ruleCount = 100;
const churn = process.env.BENCH_CHURN === '1';

async function startPlatform(): Promise<{
  app: App;
  dir: string;
  client: mqtt.MqttClient;
  api: (path: string, body: unknown) => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'thingdesk-bench-rules-'));
  const config = loadConfig({
    ...bootstrap,
    PORT: '0',
    HOST: '127.0.0.1',
    MQTT_PORT: '0',
    LOG_LEVEL: 'silent',
    DATABASE_URL: `file:${join(dir, 'thingdesk.db')}`,
  });
  const app = await startApp({ config, logger: createLogger('silent'), print: () => undefined });
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
  };
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${app.mqtt.port}`, {
    username: bootstrap.BOOTSTRAP_MQTT_USERNAME,
    password: bootstrap.BOOTSTRAP_MQTT_PASSWORD,
  });
  return { app, dir, client, api };
}

let tsm = 1_700_000_000;
// Readings from 15 to 25; no rule's threshold is crossed (BENCH_CHURN=1: ten rules at 20 open and close constantly).
const payload = () =>
  JSON.stringify(
    Array.from({ length: 10 }, (_, i) => ({ tsmId: 12100, tsmEv: 10, tsmTs: tsm++, tsmTuid: `B-${i}`, temp: 15 + ((tsm * 7) % 11) })),
  );

async function ingestRun(withRules: boolean): Promise<number> {
  const platform = await startPlatform();
  try {
    if (withRules)
      for (let i = 0; i < ruleCount; i++)
        await platform.api('/alert-rules', {
          name: `bench rule ${i}`,
          tsm_id: 12100,
          field: 'temp',
          op: i % 2 === 0 ? 'gt' : 'lt',
          threshold: churn && i % 10 === 0 ? 20 : i % 2 === 0 ? 1000 + i : -1000 - i,
          for_s: i % 20 === 0 ? 60 : 0,
          severity: 'warning',
        });
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < messages) {
        next += 10;
        await platform.client.publishAsync('thingdesk/bench/up/GW-1', payload(), { qos: 1 });
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));
    const rate = messages / ((performance.now() - started) / 1000);
    await platform.app.alertEngine.settled();
    return rate;
  } finally {
    await platform.client.endAsync();
    await platform.app.stop();
    rmSync(platform.dir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const results: Record<string, number[]> = {};
const record = (name: string, value: number) => (results[name] ??= []).push(value);
for (let run = 1; run <= runs; run++) {
  const without = await ingestRun(false);
  const withRules = await ingestRun(true);
  record('ingest msg/s without rules', without);
  record(`ingest msg/s with ${ruleCount} rules`, withRules);
  record('ingest ratio', withRules / without);
  process.stdout.write(`run ${run}/${runs} done\n`);
}
process.stdout.write(`\nbench:rules (embedded, SQLite; medians of ${runs}; ${messages} messages in arrays of 10)\n`);
for (const [name, values] of Object.entries(results))
  process.stdout.write(`  ${name.padEnd(36)} ${median(values).toFixed(name.includes('ratio') ? 3 : 1)}\n`);
process.exit(0);
