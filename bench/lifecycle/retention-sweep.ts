/**
 * The retention sweep under load (issue 16): a store holding `BENCH_SWEEP_ROWS` expired messages (default
 * 5,000,000) while a fleet publishes at a fixed 2,000 msg/s. Prints the fleet's p99 acknowledgement latency
 * before the sweep and during it (target: within 2x), the sweep's rows per second, and the store's size before
 * and after (SQLite: pages in use, on the freelist, and the file; PostgreSQL: the messages partitions).
 * SQLite always; PostgreSQL too with BENCH_DATABASE_URL (an empty schema is created there and dropped after).
 *
 * Runnable alone: `npx tsx bench/lifecycle/retention-sweep.ts` (BENCH_SWEEP_ROWS=200000 for a short run).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startApp } from '../../src/app/build-app.js';
import { benchSigningKeySealingKey } from '../lib/http-platform.js';
import { loadConfig } from '../../src/config/config.js';
import { systemClock } from '../../src/domain/clock.js';
import { createMqttCredential, createOrganization } from '../../src/domain/identity/identity-service.js';
import { dayMs } from '../../src/domain/retention/retention-rules.js';
import { createLogger } from '../../src/observability/logger.js';
import { deviceTuidFor, type FleetOptions, type FleetReport } from '../../src/simulator/index.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createMessagePartitions, messagePartitionWidthMs } from '../../src/store/retention/message-partitions.js';
import { createStore } from '../../src/store/store.js';
import { tsxImportArgs } from '../lib/node-entry.js';
import { spawnChild } from '../lib/processes.js';

export interface SweepBenchOptions {
  rows: number;
  rate: number;
  beforeS: number;
  /** PostgreSQL URL of an empty schema; undefined: a fresh SQLite file. */
  databaseUrl?: string;
}

export interface SweepBenchResult {
  store: 'sqlite' | 'postgres';
  rowsExpired: number;
  sweepS: number;
  rowsPerS: number;
  partitionsDropped: number;
  p99BeforeMs: number;
  p99DuringMs: number;
  ackedPerSBefore: number;
  ackedPerSDuring: number;
  sizeBefore: string;
  sizeAfter: string;
}

const gateways = 20;
const devices = 2000;

export async function measureRetentionSweep(
  options: SweepBenchOptions,
  log: (text: string) => void = () => undefined,
): Promise<SweepBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'thingdesk-sweep-'));
  const url = options.databaseUrl ?? `file:${join(dir, 'store.db')}`;
  try {
    const gateway = await seed(url, options.rows, log);
    const config = loadConfig({
      DATABASE_URL: url,
      PORT: '0',
      HOST: '127.0.0.1',
      MQTT_PORT: '0',
      LOG_LEVEL: 'silent',
      MESSAGE_RETENTION_DAYS: '365',
      RETENTION_SWEEP_INTERVAL_S: '604800',
      // Required on PostgreSQL (options.databaseUrl): the key the token-signing keys are sealed under.
      SIGNING_KEY_SEALING_KEY: benchSigningKeySealingKey,
    });
    const app = await startApp({ config, logger: createLogger('silent'), print: () => undefined });
    try {
      const fleetOptions: FleetOptions = {
        url: `mqtt://127.0.0.1:${app.mqtt.port}`,
        username: gateway.username,
        password: gateway.password,
        organizationId: 'bench',
        gateways,
        devices,
        rate: options.rate,
        tuidPrefix: 'SWEEP',
      };
      log(`fleet before the sweep (${options.beforeS} s at ${options.rate} msg/s)`);
      const before = startFleetChild(fleetOptions);
      await sleep(options.beforeS * 1000);
      const first = await before.finish();
      const sizeBefore = await sizeOf(app.store.dialect, url);

      const during = startFleetChild({ ...fleetOptions, reportsAfterTs: first.lastReportTs });
      await sleep(2000);
      // The organization kept its messages forever until now (so the sweep at start-up found nothing); from now
      // it follows the default, 365 days.
      await app.store.retention.set('bench', { messageRetentionDays: null });
      log(`sweeping ${options.rows} rows`);
      const started = performance.now();
      const report = await app.retention.sweep();
      const sweepS = (performance.now() - started) / 1000;
      const second = await during.finish();
      const sizeAfter = await sizeOf(app.store.dialect, url);
      // Every seeded row arrived 400+ days ago; the fleet's rows arrived now.
      const left = await oldRowsLeft(url, Date.now() - 365 * dayMs);
      if (left > 0) throw new Error(`${left} expired rows are left after the sweep`);
      const rowsExpired = options.rows;
      return {
        store: app.store.dialect,
        rowsExpired,
        sweepS,
        rowsPerS: rowsExpired / sweepS,
        partitionsDropped: report?.partitionsDropped ?? 0,
        p99BeforeMs: first.report.ackLatencyMs.p99,
        p99DuringMs: second.report.ackLatencyMs.p99,
        ackedPerSBefore: first.report.messagesPerSecond,
        ackedPerSDuring: second.report.messagesPerSecond,
        sizeBefore,
        sizeAfter,
      };
    } finally {
      await app.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Creates the organization and a gateway credential, and stores `rows` messages that arrived 400+ days ago. */
async function seed(url: string, rows: number, log: (text: string) => void): Promise<{ username: string; password: string }> {
  const database = await openDatabase(url);
  try {
    await migrateToLatest(database);
    const store = createStore(database);
    await createOrganization({ store, clock: systemClock }, { name: 'Bench', id: 'bench' });
    await store.retention.set('bench', { messageRetentionDays: 0 });
    const credential = await createMqttCredential({ store, clock: systemClock }, { organizationId: 'bench', kind: 'gateway' });
    const oldest = Date.now() - 430 * dayMs;
    log(`seeding ${rows} expired messages`);
    await insertOld(database, rows, oldest);
    return { username: credential.credential.username, password: credential.password };
  } finally {
    await database.close();
  }
}

/** Old messages of the fleet's own things, spread over four weeks of arrivals 400 to 430 days ago. */
async function insertOld(database: Database, rows: number, oldest: number): Promise<void> {
  const spreadMs = 4 * messagePartitionWidthMs;
  const body = (i: number) =>
    `{"tsmId":12100,"tsmTs":${1_650_000_000 + i},"temp":${(i % 400) / 10},"humd":${i % 100},"deploymentGroupId":"unassigned"}`;
  if (database.driver.dialect === 'sqlite') {
    const connection = database.driver.connection;
    const insert = connection.prepare(
      `insert into messages (tuid, tsm_ts, tsm_id, fingerprint, organization_id, tsm_ev, gateway_tuid, group_id, received_at, body, problems)
       values (?, ?, 12100, ?, 'bench', null, null, null, ?, ?, null)`,
    );
    const chunk = connection.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++)
        insert.run(
          deviceTuidFor('SWEEP', 1 + (i % gateways), 1 + (i % 100)),
          1_650_000_000 + i,
          i.toString(16).padStart(16, '0'),
          oldest + Math.floor((i / rows) * spreadMs),
          body(i),
        );
    });
    for (let from = 0; from < rows; from += 50_000) chunk(from, Math.min(rows, from + 50_000));
    return;
  }
  await createMessagePartitions(database.db, oldest, oldest + spreadMs);
  const pool = database.driver.pool;
  for (let from = 0; from < rows; from += 500_000) {
    const to = Math.min(rows, from + 500_000);
    await pool.query(
      `insert into messages (tuid, tsm_ts, tsm_id, fingerprint, organization_id, received_at, body)
       select 'SWEEP-' || lpad((1 + i % ${gateways})::text, 4, '0') || '-' || lpad((1 + i % 100)::text, 4, '0'), 1650000000 + i, 12100,
              lpad(to_hex(i), 16, '0'), 'bench', ${oldest} + floor(i::float8 / ${rows} * ${spreadMs})::bigint,
              '{"tsmId":12100,"tsmTs":' || (1650000000 + i) || ',"temp":' || (i % 400) / 10.0 || ',"humd":' || i % 100 || ',"deploymentGroupId":"unassigned"}'
       from generate_series(${from}, ${to - 1}) i`,
    );
  }
  await pool.query('analyze messages');
}

function startFleetChild(options: FleetOptions) {
  const child = spawnChild(
    'fleet',
    process.execPath,
    [...tsxImportArgs, new URL('./fleet-child.ts', import.meta.url).pathname, JSON.stringify(options)],
    {
      env: process.env,
    },
  );
  return {
    async finish(): Promise<{ report: FleetReport; lastReportTs: number }> {
      await child.stop(30_000);
      const line = child
        .output()
        .trim()
        .split('\n')
        .reverse()
        .find((text) => text.startsWith('{"report"'));
      if (!line) throw new Error(`the fleet printed no report: ${child.output().slice(-2000)}`);
      return JSON.parse(line) as { report: FleetReport; lastReportTs: number };
    },
  };
}

async function sizeOf(dialect: 'sqlite' | 'postgres', url: string): Promise<string> {
  if (dialect === 'sqlite') {
    const path = url.slice('file:'.length);
    const database = await openDatabase(url);
    try {
      const driver = database.driver;
      if (driver.dialect !== 'sqlite') throw new Error('unreachable');
      const pragma = (name: string) => Number(driver.connection.pragma(name, { simple: true }));
      const pageSize = pragma('page_size');
      const mb = (pages: number) => ((pages * pageSize) / 1e6).toFixed(1);
      const file = statSync(path).size;
      return `file ${(file / 1e6).toFixed(1)} MB (pages ${mb(pragma('page_count'))} MB, free ${mb(pragma('freelist_count'))} MB)`;
    } finally {
      await database.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string; partitions: number }>(
      `select coalesce(sum(pg_total_relation_size(inhrelid)), 0)::text as bytes, count(*)::int as partitions
       from pg_inherits where inhparent = 'messages'::regclass`,
    );
    return `messages ${(Number(rows[0]!.bytes) / 1e6).toFixed(1)} MB in ${rows[0]!.partitions} partitions`;
  } finally {
    await client.end();
  }
}

async function oldRowsLeft(url: string, before: number): Promise<number> {
  const database = await openDatabase(url);
  try {
    const row = await database.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('received_at', '<', before)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await database.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function postgresSchema(base: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `sweep_${randomBytes(4).toString('hex')}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    await client.query(text).finally(() => client.end());
  };
  await admin(`create schema ${schema}`);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: () => admin(`drop schema ${schema} cascade`) };
}

export function formatSweepResult(result: SweepBenchResult): string {
  return [
    `${result.store}: swept ${result.rowsExpired} rows in ${result.sweepS.toFixed(1)} s (${Math.round(result.rowsPerS)} rows/s, ${result.partitionsDropped} partitions dropped)`,
    `  fleet p99 ack latency: before ${result.p99BeforeMs} ms, during ${result.p99DuringMs} ms (${(result.p99DuringMs / Math.max(result.p99BeforeMs, 0.1)).toFixed(2)}x; target <= 2x)`,
    `  fleet acknowledged: before ${Math.round(result.ackedPerSBefore)} msg/s, during ${Math.round(result.ackedPerSDuring)} msg/s`,
    `  size before: ${result.sizeBefore}`,
    `  size after:  ${result.sizeAfter}`,
  ].join('\n');
}

/** The sweep on SQLite, and on PostgreSQL with BENCH_DATABASE_URL (BENCH_SWEEP_ROWS, default 5 million). */
export async function runRetentionSweepBench(log: (text: string) => void): Promise<SweepBenchResult[]> {
  const rows = Number(process.env.BENCH_SWEEP_ROWS ?? 5_000_000);
  const common = { rows, rate: 2000, beforeS: Number(process.env.BENCH_SWEEP_BEFORE_S ?? 15) };
  const results: SweepBenchResult[] = [];
  if (!(process.env.BENCH_SKIP ?? '').includes('sqlite')) results.push(await measureRetentionSweep(common, log));
  const base = process.env.BENCH_DATABASE_URL;
  if (base) {
    const schema = await postgresSchema(base);
    try {
      results.push(await measureRetentionSweep({ ...common, databaseUrl: schema.url }, log));
    } finally {
      await schema.drop();
    }
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const results = await runRetentionSweepBench((text) => process.stderr.write(`[retention-sweep] ${text}\n`));
  for (const result of results) console.log(formatSweepResult(result));
  process.exit(0);
}
