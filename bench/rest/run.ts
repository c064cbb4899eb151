/**
 * `npm run bench:rest` (issue 5): the REST read path under load. A store seeded with 10,000 things and 1,000,000
 * messages (bench/lib/seed-store.ts; SQLite, and PostgreSQL when BENCH_DATABASE_URL is set), the platform in its
 * own process, and autocannon in this one (100 connections, 3 s warm-up, 10 s measured per target) on:
 *
 * - a bare fastify route returning a constant, in its own process: the ceiling of this machine;
 * - `GET /things/{tuid}` and `GET /things/{tuid}/messages?limit=100`, a random seeded TUID per request;
 * - `POST /auth/client-token`.
 *
 * Prints requests/s, p50/p99 latency and each throughput as a share of the constant route in the same run, with
 * a verdict per target of the issue; saves JSON to bench/results/rest-<timestamp>.json. Settings: see
 * bench/lib/read-bench.ts.
 */
import { join } from 'node:path';
import { errorCount, measureLoad, type LoadResult, type LoadTarget } from '../lib/http-load.js';
import {
  endMachineInfo,
  fixed,
  int,
  noiseNotes,
  percent,
  saveJsonReport,
  table,
  verdictWord,
  describeErrors,
  type MachineInfo,
  type Verdict,
} from '../lib/http-report.js';
import { repoRoot, tsxImportArgs, type PlatformEntry } from '../lib/node-entry.js';
import { killAll, killChildrenOnSignal, spawnChild, waitForOutput } from '../lib/processes.js';
import { loadTiming, log, prepareReadRun, removeRunFiles, selected, startPlatform, platformEnvOverrides } from '../lib/read-bench.js';
import { defaultSeedShape, seededTuids, type SeededSqlite, type SeedStats } from '../lib/seed-store.js';
import { postgresSkipReason, preparePostgresSeed, type PostgresSeed } from './postgres-variant.js';
import { checkRestAnswers, clientTokenTarget, constantTarget, fetchClientToken, restMessagesTarget, restThingTarget } from './targets.js';

const targets = { thingRatio: 0.5, thingP99Ms: 20, messagesRatio: 0.25, clientTokenPerS: 2000 };

interface StoreRun {
  store: 'sqlite' | 'postgres';
  seed: { note: string; stats: SeedStats };
  results: LoadResult[];
}

interface RestReport {
  startedAt: string;
  machine: MachineInfo;
  timing: typeof loadTiming;
  platformEnvOverrides: Record<string, string>;
  ceiling: LoadResult | undefined;
  stores: StoreRun[];
  skipped: string[];
  verdicts: Verdict[];
}

async function measureConstantRoute(token: string, tuids: readonly string[]): Promise<LoadResult> {
  const server = spawnChild('constant server', process.execPath, [...tsxImportArgs, join(repoRoot, 'bench/rest/constant-server.ts')], {
    env: { PATH: process.env.PATH },
  });
  try {
    const port = Number((await waitForOutput(server, /constant server listening on (\d+)/))[1]);
    return await measureLoad(`http://127.0.0.1:${port}`, constantTarget(token, tuids), loadTiming, server.pid);
  } finally {
    await server.stop();
  }
}

/** The platform on one store: a client token, a correctness check, then each target in turn. */
async function measurePlatform(
  entry: PlatformEntry,
  databaseUrl: string,
  cwd: string,
  tuids: readonly string[],
  label: string,
): Promise<{ results: LoadResult[]; token: string }> {
  const platform = await startPlatform(entry, databaseUrl, cwd);
  try {
    const token = await fetchClientToken(platform.baseUrl);
    await checkRestAnswers(platform.baseUrl, token, tuids[0]!);
    const results: LoadResult[] = [];
    for (const target of [restThingTarget(token, tuids), restMessagesTarget(token, tuids), clientTokenTarget()] satisfies LoadTarget[]) {
      if (!selected(target)) continue;
      log(`${label}: ${target.name}: warm-up ${loadTiming.warmupS} s, window ${loadTiming.windowS} s`);
      results.push(await measureLoad(platform.baseUrl, target, loadTiming, platform.process.pid));
    }
    return { results, token };
  } finally {
    await platform.stop();
  }
}

function judge(ceiling: LoadResult | undefined, sqlite: StoreRun | undefined): Verdict[] {
  const find = (prefix: string) => sqlite?.results.find((result) => result.name.startsWith(prefix));
  const valid = (result: LoadResult | undefined) =>
    result !== undefined && errorCount(result) === 0 && (ceiling === undefined || errorCount(ceiling) === 0);
  const thing = find('GET /things/{tuid}');
  const messages = find('GET /things/{tuid}/messages');
  const token = find('POST /auth/client-token');
  const ratio = (result: LoadResult | undefined) => (result && ceiling ? result.requestsPerS / ceiling.requestsPerS : undefined);
  const verdict = (target: string, result: LoadResult | undefined, met: (r: LoadResult) => boolean, detail: string): Verdict => ({
    target,
    met: valid(result) && (ceiling !== undefined || target.includes('client-token')) ? met(result!) : undefined,
    detail: result && errorCount(result) > 0 ? `${detail}; INVALID: ${describeErrors(result)}` : detail,
  });
  return [
    verdict('GET /things/{tuid}: >= 50 % of the constant route', thing, (r) => ratio(r)! >= targets.thingRatio, percent(ratio(thing))),
    verdict('GET /things/{tuid}: p99 < 20 ms', thing, (r) => r.latencyMs.p99 < targets.thingP99Ms, `${fixed(thing?.latencyMs.p99)} ms`),
    verdict(
      'GET /things/{tuid}/messages?limit=100: >= 25 % of the constant route',
      messages,
      (r) => ratio(r)! >= targets.messagesRatio,
      percent(ratio(messages)),
    ),
    verdict(
      'POST /auth/client-token: >= 2,000 per second',
      token,
      (r) => r.requestsPerS >= targets.clientTokenPerS,
      `${int(token?.requestsPerS)}/s`,
    ),
  ];
}

function formatReport(report: RestReport): string {
  const out: string[] = [];
  const { timing, machine, ceiling } = report;
  out.push(
    '',
    `== REST benchmark (${machine.cpus} CPUs, Node ${machine.node}, platform ${machine.platformEntry})`,
    `autocannon in the bench process: ${timing.connections} connections, warm-up ${timing.warmupS} s, then ${timing.windowS} s measured per target; ` +
      'TUIDs drawn at random from the 10,000 seeded things per request',
    ...(Object.keys(report.platformEnvOverrides).length > 0
      ? [`platform environment overrides: ${JSON.stringify(report.platformEnvOverrides)}`]
      : []),
  );
  const verdictFor = (name: string, store: string) => {
    if (store !== 'sqlite') return '';
    const matching = report.verdicts.filter((v) => v.target.startsWith(`${name}:`));
    return matching.map((v) => `${verdictWord(v)} (${v.target.slice(name.length + 2)})`).join('; ');
  };
  const header = [
    'target',
    'req/s',
    'p50 ms',
    'p99 ms',
    'ratio to constant',
    'server CPU %',
    'server CPU µs/req',
    'errors',
    'verdict vs target',
  ];
  const row = (label: string, result: LoadResult, store: string) => [
    label,
    int(result.requestsPerS),
    fixed(result.latencyMs.p50),
    fixed(result.latencyMs.p99),
    ceiling ? percent(result.requestsPerS / ceiling.requestsPerS) : 'n/a',
    fixed(result.serverCpuPercent, 0),
    fixed(result.serverCpuMicrosPerRequest, 0),
    describeErrors(result),
    verdictFor(result.name, store),
  ];
  const rows: string[][] = [header];
  if (ceiling) rows.push(row(ceiling.name, ceiling, 'ceiling'));
  for (const store of report.stores)
    for (const result of store.results)
      rows.push(row(`${store.store === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${result.name}`, result, store.store));
  out.push('', table(rows), '');
  for (const store of report.stores) out.push(`${store.store === 'sqlite' ? 'SQLite' : 'PostgreSQL'} store: ${store.seed.note}`);
  for (const reason of report.skipped) out.push(`skipped: ${reason}`);
  const loadGen = [ceiling, ...report.stores.flatMap((s) => s.results)].filter((r): r is LoadResult => r !== undefined);
  out.push(
    `load generator CPU in the windows: ${loadGen.map((r) => `${fixed(r.loadGeneratorCpuPercent, 0)} %`).join(', ')} (of ${machine.cpus * 100} %)`,
  );
  out.push('', 'targets (issue 5, SQLite on the 2-core machine):');
  for (const v of report.verdicts) out.push(`  ${verdictWord(v).padEnd(20)} ${v.target}: ${v.detail}`);
  out.push('', ...noiseNotes(machine));
  return out.join('\n');
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  let entry: PlatformEntry | undefined;
  let seed: SeededSqlite | undefined;
  let postgres: PostgresSeed | undefined;
  const cleanup = async () => {
    await postgres?.cleanup();
    removeRunFiles(entry, seed);
  };
  killChildrenOnSignal(cleanup);
  try {
    const prepared = await prepareReadRun();
    ({ entry, seed } = prepared);
    const { machine } = prepared;
    const tuids = seededTuids();
    const stores: StoreRun[] = [];
    const skipped: string[] = [];

    // The SQLite platform first: its client token also goes into the ceiling's requests (same bytes on the wire).
    const sqlite = await measurePlatform(entry, `file:${seed.path}`, seed.workDir, tuids, 'SQLite');
    stores.push({ store: 'sqlite', seed: { note: seed.note, stats: seed.stats }, results: sqlite.results });
    let ceiling: LoadResult | undefined;
    if (selected('constant fastify route (ceiling)')) {
      log(`constant route (ceiling): warm-up ${loadTiming.warmupS} s, window ${loadTiming.windowS} s`);
      ceiling = await measureConstantRoute(sqlite.token, tuids);
    } else skipped.push('constant-route ceiling (BENCH_ONLY)');

    const pgReason = postgresSkipReason();
    if (pgReason === undefined) {
      postgres = await preparePostgresSeed(defaultSeedShape, log);
      const note = `scratch schema ${postgres.schema}, seeded in ${postgres.stats.seconds.toFixed(1)} s (${postgres.stats.commitSeconds.toFixed(1)} s in ingestBatchWriter commits), dropped at the end`;
      log(`PostgreSQL: ${note}`);
      const run = await measurePlatform(entry, postgres.databaseUrl, seed.workDir, tuids, 'PostgreSQL');
      stores.push({ store: 'postgres', seed: { note, stats: postgres.stats }, results: run.results });
      await postgres.cleanup();
    } else skipped.push(`PostgreSQL variant: ${pgReason}`);

    endMachineInfo(machine);
    const report: RestReport = {
      startedAt,
      machine,
      timing: loadTiming,
      platformEnvOverrides,
      ceiling,
      stores,
      skipped,
      verdicts: judge(
        ceiling,
        stores.find((s) => s.store === 'sqlite'),
      ),
    };
    process.stdout.write(`${formatReport(report)}\n`);
    process.stdout.write(`\nresults saved to ${saveJsonReport(join(repoRoot, 'bench/results'), 'rest', startedAt, report)}\n`);
    const invalid = [ceiling, ...stores.flatMap((s) => s.results)].some((r) => r !== undefined && errorCount(r) > 0);
    if (invalid) {
      process.stdout.write('\nINVALID: at least one window had errors (see the errors column); its figures do not count.\n');
      process.exitCode = 1;
    }
  } finally {
    await killAll();
    await cleanup();
  }
}

await main();
