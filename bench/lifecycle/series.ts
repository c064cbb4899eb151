/**
 * `bench:lifecycle`, series part (issue 16): the store of seed.ts (SQLite, and PostgreSQL when BENCH_DATABASE_URL
 * is set), the platform in its own process, and autocannon at 10 connections on `GET /things/{tuid}/series` of the
 * year thing: a year at 1d, a year at 1h (8,760 points), a month at 1h, a day raw (1,440 points). Then the batch
 * writer alone (bench/ingest/store-ceiling.ts: the fleet's rows, only commits timed) with rollups on and off,
 * alternated `BENCH_INGEST_ROUNDS` times (default 3) in the same run, medians compared.
 *
 * Runnable alone: `npx tsx bench/lifecycle/series.ts`. Settings: BENCH_WARMUP_S (2), BENCH_WINDOW_S (8),
 * BENCH_INGEST_ROUNDS (3), BENCH_SKIP=series|ingest, and seed.ts's BENCH_YEAR_MESSAGES, BENCH_FLEET_THINGS,
 * BENCH_FLEET_INTERVAL_S, BENCH_COMPACT (0: leave the hourly rollups uncompacted).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '../../src/store/database.js';
import { measureStoreCeiling, type StoreCeiling } from '../ingest/store-ceiling.js';
import { errorCount, measureLoad, type LoadResult, type LoadTarget } from '../lib/http-load.js';
import { occurrences, occurrencesInChunks } from '../lib/lean-http-load.js';
import { describeErrors, fixed, int, table } from '../lib/http-report.js';
import { preparePlatformEntry, type PlatformEntry } from '../lib/node-entry.js';
import { withClient } from '../lib/postgres-client.js';
import { killAll } from '../lib/processes.js';
import { log, restBasePath, startPlatform } from '../lib/read-bench.js';
import { fetchClientToken } from '../rest/targets.js';
import { lifecycleSeedShape, seedLifecycle, yearTuid, type LifecycleSeed } from './seed.js';

const numberFromEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
export const timing = { connections: 10, warmupS: numberFromEnv('BENCH_WARMUP_S', 2), windowS: numberFromEnv('BENCH_WINDOW_S', 8) };
const ingestRounds = numberFromEnv('BENCH_INGEST_ROUNDS', 3);
const skip = new Set((process.env.BENCH_SKIP ?? '').split(',').map((word) => word.trim()));

/** Issue 16's targets on SQLite, by target name. */
export const seriesTargetsP99Ms: Record<string, number> = { 'year at 1d': 20, 'year at 1h': 60, 'day raw': 30 };
export const ingestRatioTarget = 0.85;

export interface SeriesStoreRun {
  store: 'sqlite' | 'postgres';
  seed: LifecycleSeed;
  series: LoadResult[];
  ingest?: { on: StoreCeiling[]; off: StoreCeiling[]; medianOn: number; medianOff: number; ratio: number };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const opening = Buffer.from('{"data":{');
const closing = Buffer.from(']}}');
let answers = 0;

export function seriesTargets(token: string, seed: LifecycleSeed): LoadTarget[] {
  const path = (query: string) => `${restBasePath}/things/${yearTuid}/series?tsmId=12100&field=temp&${query}`;
  const month = seed.yearTo - 30 * 86_400;
  const day = seed.yearTo - 86_400 + 60;
  // The answer is whole and holds the points asked for (one key each). A megabyte answer (a year of hours) is
  // loaded by the lean generator, which checks it in its chunks: whole and long enough (each point at least 60
  // bytes), every 64th counted point by point, since autocannon decoding every body, and counting every answer,
  // took the load generator longer than the server. Smaller ones by autocannon, which costs the machine less a
  // request: on two cores the generator's CPU is the server's too.
  const target = (name: string, query: string, points: number, large = false): LoadTarget => ({
    name,
    varies: false,
    next: () => ({ method: 'GET', path: path(query), headers: { authorization: `Bearer ${token}` } }),
    ...(large
      ? {
          verifyChunks: (chunks: readonly Buffer[]) => {
            const last = chunks.at(-1);
            const whole =
              chunks[0]?.subarray(0, opening.length).equals(opening) === true &&
              last?.subarray(-closing.length).equals(closing) === true &&
              chunks.reduce((bytes, chunk) => bytes + chunk.length, 0) >= 60 * (points - 1);
            return whole && (++answers % 64 !== 0 || occurrencesInChunks(chunks, '"count"') >= points - 1);
          },
        }
      : { verifyBody: (body: string) => body.startsWith('{"data":{') && occurrences(body, '"count"') >= points - 1 }),
  });
  // Points each answer must hold (fewer when a smaller seed was asked for).
  const spanS = seed.yearTo - seed.yearFrom;
  const hours = Math.floor(spanS / 3600);
  return [
    target('year at 1d', `from=${seed.yearFrom}&to=${seed.yearTo}&bucket=1d`, Math.floor(spanS / 86_400)),
    target('year at 1h', `from=${seed.yearFrom}&to=${seed.yearTo}&bucket=1h&maxPoints=10000`, hours, true),
    target('month at 1h', `from=${month}&to=${seed.yearTo}&bucket=1h`, Math.min(720, hours)),
    target('day raw', `from=${day}&to=${seed.yearTo}&bucket=raw&maxPoints=2000`, Math.min(1440, Math.floor(spanS / 60))),
  ];
}

async function measureSeries(entry: PlatformEntry, databaseUrl: string, cwd: string, seed: LifecycleSeed, label: string) {
  const platform = await startPlatform(entry, databaseUrl, cwd);
  try {
    const token = await fetchClientToken(platform.baseUrl);
    const results: LoadResult[] = [];
    for (const target of seriesTargets(token, seed)) {
      log(`${label}: series ${target.name}: warm-up ${timing.warmupS} s, window ${timing.windowS} s`);
      const result = await measureLoad(platform.baseUrl, target, timing, platform.process.pid);
      log(
        `${label}: series ${target.name}: ${int(result.requestsPerS)} req/s, p50 ${fixed(result.latencyMs.p50)} ms, ` +
          `p99 ${fixed(result.latencyMs.p99)} ms, ${int(result.serverCpuMicrosPerRequest)} µs server CPU a request`,
      );
      results.push(result);
    }
    return results;
  } finally {
    await platform.stop();
  }
}

/** The batch writer alone, rollups on and off alternately; `url` makes a fresh store each time (PostgreSQL: a schema). */
async function measureIngestRatio(freshUrl: (() => Promise<{ url?: string; drop(): Promise<void> }>) | undefined, label: string) {
  const on: StoreCeiling[] = [];
  const off: StoreCeiling[] = [];
  for (let round = 0; round < ingestRounds; round++) {
    for (const rollups of [true, false]) {
      log(`${label}: batch writer, rollups ${rollups ? 'on' : 'off'} (round ${round + 1} of ${ingestRounds})`);
      const fresh = await freshUrl?.();
      try {
        const result = await measureStoreCeiling({
          gateways: 100,
          devices: 10_000,
          publishSize: 10,
          transactionSize: 2000,
          maxRows: 400_000,
          maxCommitS: 6,
          simulatedRate: 30_000,
          databaseUrl: fresh?.url,
          rollups,
        });
        (rollups ? on : off).push(result);
      } finally {
        await fresh?.drop();
      }
    }
  }
  log(`${label}: batch writer rows/s on ${on.map((r) => int(r.rowsPerS)).join(', ')}; off ${off.map((r) => int(r.rowsPerS)).join(', ')}`);
  const medianOn = median(on.map((r) => r.rowsPerS));
  const medianOff = median(off.map((r) => r.rowsPerS));
  return { on, off, medianOn, medianOff, ratio: medianOn / medianOff };
}

async function scratchSchema(base: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `${prefix}_${randomBytes(4).toString('hex')}`;
  await withClient(base, (client) => client.query(`create schema ${schema}`));
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: () => withClient(base, (client) => client.query(`drop schema if exists ${schema} cascade`)).then(() => undefined),
  };
}

/** Seeds, measures and returns both stores' runs (PostgreSQL only with BENCH_DATABASE_URL). */
export async function runSeriesBench(): Promise<SeriesStoreRun[]> {
  const runs: SeriesStoreRun[] = [];
  const entry = skip.has('series') ? undefined : await preparePlatformEntry();
  const workDir = mkdtempSync(join(tmpdir(), 'thingdesk-bench-lifecycle-'));
  try {
    const sqliteUrl = `file:${join(workDir, 'lifecycle.db')}`;
    log(`SQLite: seeding (${JSON.stringify(lifecycleSeedShape)})`);
    const database = await openDatabase(sqliteUrl);
    let seed: LifecycleSeed;
    try {
      seed = await seedLifecycle(database, lifecycleSeedShape, log);
    } finally {
      await database.close();
    }
    log(`SQLite: seeded ${seed.messages.toLocaleString('en-US')} messages in ${seed.seconds.toFixed(0)} s`);
    const sqlite: SeriesStoreRun = { store: 'sqlite', seed, series: [] };
    if (entry) sqlite.series = await measureSeries(entry, sqliteUrl, workDir, seed, 'SQLite');
    if (!skip.has('ingest')) sqlite.ingest = await measureIngestRatio(undefined, 'SQLite');
    runs.push(sqlite);

    const base = process.env.BENCH_DATABASE_URL;
    if (base) {
      const scratch = await scratchSchema(base, 'bench_lifecycle');
      try {
        log('PostgreSQL: seeding');
        const pgDatabase = await openDatabase(scratch.url);
        let pgSeed: LifecycleSeed;
        try {
          pgSeed = await seedLifecycle(pgDatabase, lifecycleSeedShape, log);
        } finally {
          await pgDatabase.close();
        }
        log(`PostgreSQL: seeded ${pgSeed.messages.toLocaleString('en-US')} messages in ${pgSeed.seconds.toFixed(0)} s`);
        // Planner statistics, as autovacuum would have gathered them on a store that grew over a year.
        await withClient(scratch.url, (client) => client.query('analyze'));
        const postgres: SeriesStoreRun = { store: 'postgres', seed: pgSeed, series: [] };
        if (entry) postgres.series = await measureSeries(entry, scratch.url, workDir, pgSeed, 'PostgreSQL');
        if (!skip.has('ingest')) postgres.ingest = await measureIngestRatio(() => scratchSchema(base, 'bench_ingest'), 'PostgreSQL');
        runs.push(postgres);
      } finally {
        await scratch.drop();
      }
    } else log('PostgreSQL skipped: BENCH_DATABASE_URL is not set');
  } finally {
    if (entry?.buildDir) rmSync(entry.buildDir, { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  }
  return runs;
}

/** The runs as a table: per store and target, latency and req/s with the SQLite verdicts; the ingest ratio. */
export function formatSeriesReport(runs: readonly SeriesStoreRun[]): string {
  const rows = [['store', 'series', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'target', 'verdict']];
  for (const run of runs) {
    for (const result of run.series) {
      const target = run.store === 'sqlite' ? seriesTargetsP99Ms[result.name] : undefined;
      const invalid = errorCount(result) > 0;
      const verdict = invalid
        ? `INVALID: ${describeErrors(result)}`
        : target === undefined
          ? ''
          : result.latencyMs.p99 < target
            ? 'met'
            : 'MISSED';
      rows.push([
        run.store,
        result.name,
        int(result.requestsPerS),
        fixed(result.latencyMs.p50),
        fixed(result.latencyMs.p99),
        int(result.serverCpuMicrosPerRequest),
        target ? `p99 < ${target}` : '',
        verdict,
      ]);
    }
  }
  const lines = [table(rows), ''];
  for (const run of runs) {
    const compaction = run.seed.compaction;
    if (compaction)
      lines.push(
        `${run.store}: compaction after seeding read ${int(compaction.rows)} rows (raw messages and hourly rollups) in ` +
          `${compaction.seconds.toFixed(1)} s: ${fixed((compaction.seconds * 1e6) / run.seed.messages)} µs a stored message`,
      );
    if (!run.ingest) continue;
    const { medianOn, medianOff, ratio, on, off } = run.ingest;
    if (compaction) {
      // What a message costs in all, the compaction that later reads it again included (the seed's figure).
      const withCompaction = 1 / medianOff / (1 / medianOn + compaction.seconds / run.seed.messages);
      lines.push(
        `${run.store}: with the compaction's time per message added to the batch writer's: ${(withCompaction * 100).toFixed(0)} % of rollups off`,
      );
    }
    lines.push(
      `${run.store}: batch writer rows/s with rollups ${int(medianOn)} vs without ${int(medianOff)} (median of ${on.length}; ` +
        `on ${on.map((r) => int(r.rowsPerS)).join(', ')}; off ${off.map((r) => int(r.rowsPerS)).join(', ')}): ` +
        `${(ratio * 100).toFixed(0)} % (target >= ${ingestRatioTarget * 100} %: ${ratio >= ingestRatioTarget ? 'met' : 'MISSED'})`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const runs = await runSeriesBench();
    process.stdout.write(`${formatSeriesReport(runs)}\n`);
  } finally {
    await killAll();
  }
}
