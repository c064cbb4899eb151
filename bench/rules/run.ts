/**
 * `npm run bench:rules` (issue 35): what alert rules cost ingest on the embedded path (SQLite, the embedded broker;
 * the platform in this process). Arrays of 10 uplinks of the message id the rules read, as fast as the platform
 * acknowledges them (50 publishes in flight), for BENCH_MESSAGES (20000) messages; with no rule and with 100 enabled
 * rules on that message id (every one read for every message, none crossed). BENCH_CHURN=1 makes ten of them open and
 * close periods on most messages (alert churn: every transition is a period row, a feed message and an event; see
 * docs/decisions.md). With BENCH_DATABASE_URL, the same on PostgreSQL (a scratch schema) behind the external broker
 * BENCH_MQTT_URL (mqtt://127.0.0.1:1883 unless set): there a broker's acknowledgement is not a commit, so the rate
 * runs from the first publish to the last row stored. Each figure is the median of BENCH_RUNS runs (3), in this
 * invocation, the two variants interleaved.
 *
 * Not measured here: the time from an uplink's acknowledgement to an e-mail (see the closing note).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { startApp, type App } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { benchBootstrap as bootstrap } from '../ingest/spawn-platform.js';
import { benchSigningKeySealingKey } from '../lib/http-platform.js';
import { withClient } from '../lib/postgres-client.js';

const numberFromEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const runs = numberFromEnv('BENCH_RUNS', 3);
const messages = numberFromEnv('BENCH_MESSAGES', 20_000);
const ruleCount = 100;
const churn = process.env.BENCH_CHURN === '1';

type Variant = 'embedded' | 'postgres';
const postgresBase = process.env.BENCH_DATABASE_URL;
const externalBroker = process.env.BENCH_MQTT_URL || 'mqtt://127.0.0.1:1883';

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

async function startPlatform(variant: Variant): Promise<{
  app: App;
  dir: string;
  client: mqtt.MqttClient;
  api: (path: string, body: unknown) => Promise<void>;
  storedRows: () => Promise<number>;
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
  const client = postgres
    ? await mqtt.connectAsync(externalBroker)
    : await mqtt.connectAsync(`mqtt://127.0.0.1:${app.mqtt.port}`, {
        username: bootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: bootstrap.BOOTSTRAP_MQTT_PASSWORD,
      });
  const storedRows = async () =>
    postgres ? Number((await withClient(postgres.url, (c) => c.query('select count(*) as n from messages'))).rows[0].n) : messages;
  return { app, dir, client, api, storedRows, drop: async () => postgres?.drop() };
}

let tsm = 1_700_000_000;
// Readings from 15 to 25; no rule's threshold is crossed (BENCH_CHURN=1: ten rules at 20 open and close constantly).
const payload = () =>
  JSON.stringify(
    Array.from({ length: 10 }, (_, i) => ({ tsmId: 12100, tsmEv: 10, tsmTs: tsm++, tsmTuid: `B-${i}`, temp: 15 + ((tsm * 7) % 11) })),
  );

async function ingestRun(variant: Variant, withRules: boolean): Promise<number> {
  const platform = await startPlatform(variant);
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
    // Behind an external broker the acknowledgement is the broker's: the run ends when the last row is stored.
    while ((await platform.storedRows()) < messages) await new Promise((resolve) => setTimeout(resolve, 20));
    const rate = messages / ((performance.now() - started) / 1000);
    await platform.app.alertEngine.settled();
    return rate;
  } finally {
    await platform.client.endAsync();
    await platform.app.stop();
    await platform.drop();
    rmSync(platform.dir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const results: Record<string, number[]> = {};
const record = (name: string, value: number) => (results[name] ??= []).push(value);
const variants: Variant[] = postgresBase ? ['embedded', 'postgres'] : ['embedded'];
if (!postgresBase) process.stderr.write('bench: PostgreSQL + external broker skipped: BENCH_DATABASE_URL is not set\n');
for (let run = 1; run <= runs; run++) {
  for (const variant of variants) {
    const without = await ingestRun(variant, false);
    const withRules = await ingestRun(variant, true);
    record(`${variant}: msg/s without rules`, without);
    record(`${variant}: msg/s with ${ruleCount} rules`, withRules);
    record(`${variant}: ratio`, withRules / without);
  }
  process.stdout.write(`run ${run}/${runs} done\n`);
}
process.stdout.write(
  `\nbench:rules (${churn ? 'churn, ' : ''}medians of ${runs}; ${messages} messages in arrays of 10; embedded: SQLite and the embedded broker; postgres: PostgreSQL and ${externalBroker})\n`,
);
for (const [name, values] of Object.entries(results))
  process.stdout.write(`  ${name.padEnd(40)} ${median(values).toFixed(name.includes('ratio') ? 3 : 1)}\n`);
process.exit(0);
