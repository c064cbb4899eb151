/**
 * `npm run bench:ingest`: the ingest benchmark. For single messages and arrays of 10, a fleet of 10,000
 * devices behind 100 gateways publishes (QoS 1) as fast as acknowledgements allow against the platform in its
 * own process (embedded broker + SQLite; PostgreSQL + an external broker when configured), and the rows that
 * reach the store are counted. Two ceilings put the rates in proportion: the same fleet against a broker that
 * does nothing, and the platform's batch writer alone on the same schema.
 *
 * Environment (all optional): BENCH_WARMUP_S (3), BENCH_WINDOW_S (15), BENCH_MAX_IN_FLIGHT (100), BENCH_MQTT_PROTOCOL
 * (5, the simulator's default; 4 for MQTT 3.1.1),
 * BENCH_PLATFORM_ENV ("INGEST_BATCH_SIZE=2000 ..." passed to the platform, for experiments), BENCH_SKIP
 * (comma-separated: embedded, broker, store, external), BENCH_SIZES (1,10), BENCH_PLATFORM=tsx, BENCH_DATABASE_URL and BENCH_MQTT_URL (unset:
 * a Mosquitto of the bench's own), BENCH_CPU_PROFILE_DIR (each platform process writes a V8 CPU profile there).
 */
import { rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { SqliteBinding } from '../../src/store/sqlite-binding.js';
import type { FleetOptions } from '../../src/simulator/index.js';
import { preparePlatformEntry, repoRoot, type PlatformEntry } from '../lib/node-entry.js';
import { killAll, killChildrenOnSignal } from '../lib/processes.js';
import { RssSampler } from '../lib/proc-stats.js';
import { measureAedesCeiling, measureExternalCeiling, type BrokerCeiling } from './broker-ceiling.js';
import { measureFleet, type WindowTiming } from './measure-fleet.js';
import { externalPlatformEnv, externalSkipReason, prepareExternalTarget, type ExternalTarget } from './postgres-variant.js';
import { formatReport, judge, saveReport, type IngestReport, type ScenarioResult } from './report.js';
import { benchBootstrap, benchOrganizationId, spawnPlatform } from './spawn-platform.js';
import { measureStoreCeiling, type StoreCeiling } from './store-ceiling.js';

const numberFromEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const timing: WindowTiming = { warmupS: numberFromEnv('BENCH_WARMUP_S', 3), settleS: 2, windowS: numberFromEnv('BENCH_WINDOW_S', 15) };
const skip = new Set((process.env.BENCH_SKIP ?? '').split(',').map((entry) => entry.trim()));
const platformEnv = Object.fromEntries(
  (process.env.BENCH_PLATFORM_ENV ?? '')
    .split(/\s+/)
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const fleetBase = {
  gateways: 100,
  devices: 10_000,
  rate: 0,
  qos: 1 as const,
  maxInFlight: numberFromEnv('BENCH_MAX_IN_FLIGHT', 100),
  protocolVersion: numberFromEnv('BENCH_MQTT_PROTOCOL', 5) === 4 ? (4 as const) : (5 as const),
  tuidPrefix: 'BENCH',
};
// BENCH_SIZES=10 runs arrays only (for experiments); both by default.
const publishSizes = (process.env.BENCH_SIZES ?? '1,10')
  .split(',')
  .map(Number)
  .filter((size) => size === 1 || size === 10);
// Far above what one instance's consumer holds in flight (slots x receive maximum), far below any queue limit.
const externalBacklogBounds = { high: 40_000, low: 20_000 };
// The "sustained offered rate of 80 % of the measured maximum".
const sustainedShare = 0.8;
const describeSize = (size: number) => (size === 1 ? 'single messages' : `arrays of ${size}`);
const log = (text: string) => process.stderr.write(`bench: ${text}\n`);

/** One scenario on the embedded broker and SQLite: a fresh platform (fresh store), measured, stopped. */
async function runSqliteScenario(entry: PlatformEntry, batchSize: number): Promise<Omit<ScenarioResult, 'brokerCeiling' | 'storeCeiling'>> {
  const platform = await spawnPlatform(entry, platformEnv);
  const rows = new SqliteBinding(join(platform.workDir, 'bench.db'), { readonly: true });
  const countRows = rows.prepare<[], { rows: number }>('select count(*) as rows from messages');
  const simulatorRss = new RssSampler(process.pid, false);
  try {
    // Never fall back to the default port 1883: that is a shared broker, not this platform.
    if (platform.mqttPort === undefined) throw new Error('the platform did not report its embedded broker port');
    const fleet: FleetOptions = {
      ...fleetBase,
      url: `mqtt://127.0.0.1:${platform.mqttPort}`,
      username: benchBootstrap.BOOTSTRAP_MQTT_USERNAME,
      password: benchBootstrap.BOOTSTRAP_MQTT_PASSWORD,
      organizationId: benchOrganizationId,
      batchSize,
    };
    const measurement = await measureFleet(
      fleet,
      { countRows: async () => countRows.get()!.rows, metricsUrl: platform.metricsUrl, serverPid: platform.process.pid },
      timing,
    );
    return {
      name: `SQLite + embedded, ${describeSize(batchSize)}`,
      store: 'sqlite',
      broker: 'embedded',
      batchSize,
      platform: measurement,
      platformPeakRssMiB: platform.rss.stop(),
      simulatorPeakRssMiB: simulatorRss.stop(),
      ackAfterCommit: true,
    };
  } finally {
    simulatorRss.stop();
    rows.close();
    await platform.stop();
    rmSync(platform.workDir, { recursive: true, force: true });
  }
}

/** One scenario on PostgreSQL and the external broker, with the fleet on its own organization's topics. */
async function runExternalScenario(
  entry: PlatformEntry,
  target: ExternalTarget,
  batchSize: number,
): Promise<Omit<ScenarioResult, 'brokerCeiling' | 'storeCeiling'>> {
  const platform = await spawnPlatform(entry, {
    ...platformEnv,
    ...externalPlatformEnv(target),
  });
  const simulatorRss = new RssSampler(process.pid, false);
  try {
    const fleet: FleetOptions = { ...fleetBase, url: target.mqttUrl, organizationId: target.organizationId, batchSize };
    const measured = { countRows: () => target.countRows(), metricsUrl: platform.metricsUrl, serverPid: platform.process.pid, drain: true };
    // The most the platform takes in: the fleet kept a bounded backlog ahead of it (see backlog-governor.ts).
    const measurement = await measureFleet(fleet, { ...measured, govern: externalBacklogBounds }, timing);
    // Then what an operator sizes for: a steady offered rate below that, which must not build a backlog.
    const offeredPerS = Math.round(sustainedShare * (measurement.committedPerS ?? 0));
    log(
      `platform (PostgreSQL + external broker), ${describeSize(batchSize)}: sustained ${offeredPerS.toLocaleString('en-US')} msgs/s offered, window ${timing.windowS} s`,
    );
    const sustained =
      offeredPerS > 0
        ? await measureFleet({ ...fleet, rate: offeredPerS, reportsAfterTs: measurement.lastReportTs }, measured, { ...timing, warmupS: 0 })
        : undefined;
    return {
      sustained: sustained && { offeredPerS, share: sustainedShare, measurement: sustained },
      name: `PostgreSQL + external broker, ${describeSize(batchSize)}`,
      store: 'postgres',
      broker: 'external',
      batchSize,
      platform: measurement,
      platformPeakRssMiB: platform.rss.stop(),
      simulatorPeakRssMiB: simulatorRss.stop(),
      // The external broker acknowledges the gateway on receipt; the platform commits later.
      ackAfterCommit: false,
    };
  } finally {
    simulatorRss.stop();
    await platform.stop();
    await target.endSessions();
    rmSync(platform.workDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg()[0]!;
  let external: ExternalTarget | undefined;
  let entry: PlatformEntry | undefined;
  const cleanup = async () => {
    await external?.cleanup();
    if (entry?.buildDir) rmSync(entry.buildDir, { recursive: true, force: true });
  };
  killChildrenOnSignal(cleanup);
  try {
    log('compiling the platform into a temporary directory');
    entry = await preparePlatformEntry();
    log(`platform: ${entry.note}`);
    const scenarios: ScenarioResult[] = [];
    const skipped: string[] = [];
    const storeCeilings: StoreCeiling[] = [];

    if (!skip.has('embedded')) {
      for (const size of publishSizes) {
        log(`platform (SQLite + embedded broker), ${describeSize(size)}: warm-up ${timing.warmupS} s, window ${timing.windowS} s`);
        scenarios.push({ ...(await runSqliteScenario(entry, size)), brokerCeiling: undefined, storeCeiling: undefined });
      }
    } else skipped.push('SQLite + embedded broker variant (BENCH_SKIP=embedded)');
    const aedesCeilings = new Map<number, BrokerCeiling>();
    if (!skip.has('broker')) {
      for (const size of publishSizes) {
        log(`broker alone (aedes, no-op handler), ${describeSize(size)}`);
        aedesCeilings.set(size, await measureAedesCeiling({ ...fleetBase, organizationId: benchOrganizationId, batchSize: size }, timing));
      }
    } else skipped.push('broker-alone ceiling (BENCH_SKIP=broker)');
    if (!skip.has('store')) {
      // The ceiling proper (large transactions), and the platform's default INGEST_BATCH_SIZE for comparison.
      for (const transactionSize of [10_000, 500]) {
        log(`store alone (SQLite, ${transactionSize}-record transactions)`);
        storeCeilings.push(
          await measureStoreCeiling({
            gateways: 100,
            devices: 10_000,
            publishSize: 10,
            transactionSize,
            maxRows: 600_000,
            maxCommitS: 8,
            simulatedRate: 30_000,
          }),
        );
      }
    } else skipped.push('store-alone ceiling (BENCH_SKIP=store)');
    for (const scenario of scenarios) {
      scenario.brokerCeiling = aedesCeilings.get(scenario.batchSize);
      scenario.storeCeiling = storeCeilings.find((ceiling) => ceiling.store === 'sqlite');
    }

    const externalReason = skip.has('external') ? 'BENCH_SKIP=external' : await externalSkipReason();
    if (externalReason === undefined) {
      external = await prepareExternalTarget();
      if (!skip.has('store')) {
        log('store alone (PostgreSQL, 2000-record transactions)');
        storeCeilings.push(
          await measureStoreCeiling({
            gateways: 100,
            devices: 10_000,
            publishSize: 10,
            transactionSize: 2000,
            maxRows: 300_000,
            maxCommitS: 8,
            simulatedRate: 30_000,
            databaseUrl: external.storeCeilingUrl,
          }),
        );
      }
      const postgresCeiling = storeCeilings.find((ceiling) => ceiling.store === 'postgres');
      for (const size of publishSizes) {
        log(`platform (PostgreSQL + ${external.brokerNote}), ${describeSize(size)}`);
        const scenario = await runExternalScenario(entry, external, size);
        log(`broker alone (${external.mqttUrl} with no-op consumers), ${describeSize(size)}`);
        const ceiling = skip.has('broker')
          ? undefined
          : await measureExternalCeiling(
              { ...fleetBase, url: external.mqttUrl, organizationId: external.organizationId, batchSize: size },
              external.consumers,
              timing,
            );
        scenarios.push({ ...scenario, brokerCeiling: ceiling, storeCeiling: postgresCeiling });
      }
    } else skipped.push(`PostgreSQL + external broker variant: ${externalReason}`);

    const report: IngestReport = {
      startedAt,
      machine: {
        cpus: cpus().length,
        node: process.versions.node,
        platformEntry: entry.note,
        loadAverage: { start: loadAtStart, end: loadavg()[0]! },
      },
      externalBroker:
        external &&
        `${external.brokerNote}; the fleet is held while the platform is more than ${externalBacklogBounds.high.toLocaleString('en-US')} messages behind (the broker acknowledges on receipt)`,
      fleet: {
        gateways: fleetBase.gateways,
        devices: fleetBase.devices,
        maxInFlight: fleetBase.maxInFlight,
        qos: fleetBase.qos,
        protocolVersion: fleetBase.protocolVersion,
        ...timing,
        platformEnv,
      },
      scenarios,
      storeCeilings,
      skipped,
      verdicts: judge(scenarios),
    };
    process.stdout.write(`${formatReport(report)}\n`);
    process.stdout.write(`\nresults saved to ${saveReport(report, join(repoRoot, 'bench/results'))}\n`);
  } finally {
    await killAll();
    await cleanup();
  }
}

await main();
