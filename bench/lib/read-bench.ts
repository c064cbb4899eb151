/**
 * Settings and set-up shared by the read benchmarks (bench:rest, bench:graphql).
 *
 * Environment (all optional): BENCH_CONNECTIONS (100), BENCH_WARMUP_S (3), BENCH_WINDOW_S (10), BENCH_ONLY
 * (comma-separated target names, case-insensitive, `*` at the end for a prefix: only those run, for profiling;
 * e.g. "get /things/{tuid}" or "graphql*,constant*"), BENCH_PLATFORM_ENV
 * ("KEY=VALUE ..." passed to the platform, for experiments), BENCH_PLATFORM_NODE_ARGS (e.g. "--cpu-prof
 * --cpu-prof-dir=/tmp/prof"), BENCH_PLATFORM=tsx, BENCH_SEED_CACHE=0, BENCH_RESEED=1, BENCH_DATABASE_URL (bench:rest).
 */
import { rmSync } from 'node:fs';
import { preparePlatformEntry, type PlatformEntry } from './node-entry.js';
import { spawnReadPlatform, type ReadPlatform } from './http-platform.js';
import type { LoadTarget, LoadTiming } from './http-load.js';
import { defaultSeedShape, prepareSeededSqlite, type SeededSqlite } from './seed-store.js';
import { busyLoad, machineInfo, type MachineInfo } from './http-report.js';

/** The platform's default paths, passed to it explicitly so a changed default cannot point the bench elsewhere. */
export const restBasePath = '/api/v1';
export const graphqlPath = '/v1/graphql';

const numberFromEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

export const loadTiming: LoadTiming = {
  connections: numberFromEnv('BENCH_CONNECTIONS', 100),
  warmupS: numberFromEnv('BENCH_WARMUP_S', 3),
  windowS: numberFromEnv('BENCH_WINDOW_S', 10),
};

export const platformEnvOverrides: Record<string, string> = Object.fromEntries(
  (process.env.BENCH_PLATFORM_ENV ?? '')
    .split(/\s+/)
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

const platformNodeArgs = (process.env.BENCH_PLATFORM_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '');
const only = (process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((word) => word.trim().toLowerCase())
  .filter((word) => word !== '');

/** Whether a target runs under BENCH_ONLY. */
export function selected(target: LoadTarget | string): boolean {
  const name = (typeof target === 'string' ? target : target.name).toLowerCase();
  return only.length === 0 || only.some((word) => (word.endsWith('*') ? name.startsWith(word.slice(0, -1)) : name === word));
}

export const log = (text: string) => process.stderr.write(`bench: ${text}\n`);

/** Compiles the platform and prepares the seeded SQLite copy at the same time (tsc runs in its own process). */
export async function prepareReadRun(): Promise<{ entry: PlatformEntry; seed: SeededSqlite; machine: MachineInfo }> {
  // Measured before compiling and seeding add their own load.
  const machineAtStart = machineInfo('');
  if (machineAtStart.loadAverage.start > busyLoad)
    log(`WARNING: 1-minute load is ${machineAtStart.loadAverage.start.toFixed(2)}: something else is running; figures will be distorted`);
  log('compiling the platform into a temporary directory; preparing the seeded SQLite store');
  const [entry, seed] = await Promise.all([preparePlatformEntry(), prepareSeededSqlite(defaultSeedShape, log)]);
  log(`platform: ${entry.note}`);
  log(`store: ${seed.note}`);
  return { entry, seed, machine: { ...machineAtStart, platformEntry: entry.note } };
}

/** The platform with the bench settings, the overrides of BENCH_PLATFORM_ENV and BENCH_PLATFORM_NODE_ARGS. */
export function startPlatform(
  entry: PlatformEntry,
  databaseUrl: string,
  cwd: string,
  extraEnv: Record<string, string> = {},
): Promise<ReadPlatform> {
  const withArgs: PlatformEntry = { ...entry, args: [...platformNodeArgs, ...entry.args] };
  return spawnReadPlatform(withArgs, databaseUrl, cwd, {
    REST_BASE_PATH: restBasePath,
    GRAPHQL_PATH: graphqlPath,
    ...extraEnv,
    ...platformEnvOverrides,
  });
}

export function removeRunFiles(entry: PlatformEntry | undefined, seed: SeededSqlite | undefined): void {
  if (entry?.buildDir) rmSync(entry.buildDir, { recursive: true, force: true });
  if (seed) rmSync(seed.workDir, { recursive: true, force: true });
}
