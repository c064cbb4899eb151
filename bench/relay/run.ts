/**
 * `npm run bench:relay` (issue 18): what the live relay between instances costs and how late it delivers. Two
 * platform processes share one PostgreSQL store and the bench's own Mosquitto (BENCH_DATABASE_URL required; see
 * bench/ingest/postgres-variant.ts), and a fleet publishes arrays of 10:
 *
 * - cost: the most the two instances commit per second (the fleet held to a bounded backlog, as bench:ingest does)
 *   with MQTT_LIVE_RELAY=on and =off, in turn, each with a live subscriber on each instance (the relay only
 *   matters where someone follows live; an instance without one skips reading relayed batches);
 * - lag: at 80 % of that rate, a `messages` subscriber on each instance follows the same group of 100 things; every
 *   message reaches one subscriber from its own instance and the other through the relay, so the difference of the
 *   two arrival times is the relay's lag (p50, p99); messages missing on either side or seen twice are counted.
 *
 * Targets: p99 lag < 250 ms, cost < 10 % of committed msg/s. Saves JSON to bench/results/relay-<timestamp>.json.
 * Environment: BENCH_WARMUP_S (3), BENCH_WINDOW_S (15), BENCH_RUNS (1; the median of the runs is reported).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FleetOptions } from '../../src/simulator/index.js';
import { deviceTuidFor } from '../../src/simulator/index.js';
import { measureFleet, type WindowTiming } from '../ingest/measure-fleet.js';
import { externalPlatformEnv, externalSkipReason, prepareExternalTarget, type ExternalTarget } from '../ingest/postgres-variant.js';
import { benchBootstrap, spawnPlatform, type RunningPlatform } from '../ingest/spawn-platform.js';
import { preparePlatformEntry, repoRoot, type PlatformEntry } from '../lib/node-entry.js';
import { killChildrenOnSignal } from '../lib/processes.js';
import { LiveSubscriber } from './live-subscriber.js';

const numberFromEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const timing: WindowTiming = { warmupS: numberFromEnv('BENCH_WARMUP_S', 3), settleS: 2, windowS: numberFromEnv('BENCH_WINDOW_S', 15) };
const runs = numberFromEnv('BENCH_RUNS', 1);
const backlogBounds = { high: 40_000, low: 20_000 };
const targets = { p99LagMs: 250, cost: 0.1 };
// One device behind each gateway: a hundredth of the fleet, so the subscribers cost little next to the ingest.
const sampleTuids = Array.from({ length: 100 }, (_, i) => deviceTuidFor('BENCH', i + 1, 1));
const log = (text: string) => process.stderr.write(`bench: ${text}\n`);

interface RunResult {
  committedOn: number;
  committedOff: number;
  cost: number;
  lag: { p50Ms: number; p99Ms: number; maxMs: number; samples: number; missing: number; duplicates: number; offeredPerS: number };
}

type Platform = RunningPlatform & { workDir: string };

async function twoInstances(entry: PlatformEntry, target: ExternalTarget, relay: 'on' | 'off'): Promise<Platform[]> {
  const platforms: Platform[] = [];
  for (const name of ['a', 'b']) {
    platforms.push(
      await spawnPlatform(entry, {
        ...externalPlatformEnv(target),
        MQTT_CLIENT_ID: `${target.mqttClientId}-${name}`,
        MQTT_LIVE_RELAY: relay,
      }),
    );
  }
  // The slots settle over the two instances (leases renewed every 2 s).
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  return platforms;
}

async function stopAll(platforms: readonly Platform[], target: ExternalTarget): Promise<void> {
  for (const platform of platforms) {
    await platform.stop();
    rmSync(platform.workDir, { recursive: true, force: true });
  }
  await target.endSessions();
}

function fleetFor(target: ExternalTarget, extra: Partial<FleetOptions> = {}): FleetOptions {
  return {
    gateways: 100,
    devices: 10_000,
    rate: 0,
    qos: 1,
    maxInFlight: 100,
    protocolVersion: 5,
    tuidPrefix: 'BENCH',
    url: target.mqttUrl,
    organizationId: target.organizationId,
    batchSize: 10,
    ...extra,
  };
}

/** Committed msg/s of both instances together (rows in the shared store), the fleet held to a bounded backlog. */
async function committedPerS(
  entry: PlatformEntry,
  target: ExternalTarget,
  relay: 'on' | 'off',
  after: number,
): Promise<{ perS: number; lastTs: number }> {
  const platforms = await twoInstances(entry, target, relay);
  const subscribers = await subscribe(platforms, target);
  try {
    const measurement = await measureFleet(
      fleetFor(target, { reportsAfterTs: after }),
      { countRows: () => target.countRows(), metricsUrl: platforms[0]!.metricsUrl, drain: false, govern: backlogBounds },
      timing,
    );
    return { perS: measurement.committedPerS ?? 0, lastTs: measurement.lastReportTs };
  } finally {
    for (const subscriber of subscribers) subscriber.stop();
    await stopAll(platforms, target);
  }
}

const sampleGroup = 'relay-sample';

/** Puts the sample of things in one group (claiming them for the organization), through the REST API. */
async function groupSample(platform: Platform): Promise<void> {
  const base = `http://127.0.0.1:${platform.httpPort}/api/v1`;
  const tokenResponse = await fetch(`${base}/auth/client-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: benchBootstrap.BOOTSTRAP_CLIENT_ID, client_secret: benchBootstrap.BOOTSTRAP_CLIENT_SECRET }),
  });
  const { data } = (await tokenResponse.json()) as { data: { token: string } };
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${data.token}` };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (response.status !== 200 && response.status !== 409) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  };
  await post('/groups', { group_id: sampleGroup });
  for (const tuid of sampleTuids) await post(`/things/${tuid}/group`, { group_id: sampleGroup });
}

/** A subscriber on each instance, following the sample group (one subscription each). */
async function subscribe(platforms: readonly Platform[], target: ExternalTarget): Promise<LiveSubscriber[]> {
  await groupSample(platforms[0]!);
  const credentials = {
    email: benchBootstrap.BOOTSTRAP_EMAIL,
    password: benchBootstrap.BOOTSTRAP_PASSWORD,
    organizationName: target.bootstrapOrg,
  };
  const subscribers = platforms.map((platform) => new LiveSubscriber(platform.httpPort, credentials));
  for (const subscriber of subscribers) await subscriber.start(sampleGroup);
  await new Promise((resolve) => setTimeout(resolve, 500));
  return subscribers;
}

async function relayLag(
  entry: PlatformEntry,
  target: ExternalTarget,
  offeredPerS: number,
  after: number,
): Promise<{ lag: RunResult['lag']; lastTs: number }> {
  const platforms = await twoInstances(entry, target, 'on');
  const credentials = {
    email: benchBootstrap.BOOTSTRAP_EMAIL,
    password: benchBootstrap.BOOTSTRAP_PASSWORD,
    organizationName: target.bootstrapOrg,
  };
  const subscribers = platforms.map((platform) => new LiveSubscriber(platform.httpPort, credentials));
  let lastTs = after;
  try {
    for (const subscriber of subscribers) await subscriber.start(sampleGroup);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const measured = await measureFleet(
      fleetFor(target, { rate: offeredPerS, reportsAfterTs: after }),
      { countRows: () => target.countRows() },
      { ...timing, warmupS: 0 },
    );
    lastTs = measured.lastReportTs;
    // Let the last relayed batches arrive.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  } finally {
    for (const subscriber of subscribers) subscriber.stop();
    await stopAll(platforms, target);
  }
  const [a, b] = subscribers as [LiveSubscriber, LiveSubscriber];
  const lags: number[] = [];
  let missing = 0;
  for (const key of new Set([...a.arrivals.keys(), ...b.arrivals.keys()])) {
    const at = a.arrivals.get(key);
    const bt = b.arrivals.get(key);
    if (at === undefined || bt === undefined) missing += 1;
    else lags.push(Math.abs(at - bt));
  }
  lags.sort((x, y) => x - y);
  const quantile = (q: number) => (lags.length === 0 ? NaN : lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!);
  const lag = {
    p50Ms: quantile(0.5),
    p99Ms: quantile(0.99),
    maxMs: lags.at(-1) ?? NaN,
    samples: lags.length,
    missing,
    duplicates: a.duplicates + b.duplicates,
    offeredPerS,
  };
  return { lag, lastTs };
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const skip = await externalSkipReason();
  if (skip) {
    log(`skipped: ${skip}`);
    return;
  }
  let entry: PlatformEntry | undefined;
  let target: ExternalTarget | undefined;
  const cleanup = async () => {
    await target?.cleanup();
    if (entry?.buildDir) rmSync(entry.buildDir, { recursive: true, force: true });
  };
  killChildrenOnSignal(cleanup);
  try {
    entry = await preparePlatformEntry();
    target = await prepareExternalTarget();
    const results: RunResult[] = [];
    let after = 0;
    for (let run = 1; run <= runs; run++) {
      // Off and on alternate their order across runs, so drift in the machine's load does not favour one.
      const order: ('on' | 'off')[] = run % 2 === 1 ? ['off', 'on'] : ['on', 'off'];
      const committed: Record<string, number> = {};
      for (const relay of order) {
        log(`run ${run}: two instances, MQTT_LIVE_RELAY=${relay}, arrays of 10, window ${timing.windowS} s`);
        const measured = await committedPerS(entry, target, relay, after);
        committed[relay] = measured.perS;
        after = measured.lastTs;
      }
      const offered = Math.round(0.8 * committed.on!);
      log(
        `run ${run}: relay lag at ${offered.toLocaleString('en-US')} msgs/s offered, a group of ${sampleTuids.length} things followed on each instance`,
      );
      const { lag, lastTs } = await relayLag(entry, target, offered, after);
      after = lastTs;
      results.push({ committedOn: committed.on!, committedOff: committed.off!, cost: 1 - committed.on! / committed.off!, lag });
    }
    const summary = {
      committedOn: median(results.map((r) => r.committedOn)),
      committedOff: median(results.map((r) => r.committedOff)),
      cost: median(results.map((r) => r.cost)),
      p50LagMs: median(results.map((r) => r.lag.p50Ms)),
      p99LagMs: median(results.map((r) => r.lag.p99Ms)),
    };
    const lines = [
      '',
      `Live relay between two instances (PostgreSQL + ${target.brokerNote}), arrays of 10, ${runs} run(s), medians`,
      `  committed msg/s, relay off: ${Math.round(summary.committedOff).toLocaleString('en-US')}`,
      `  committed msg/s, relay on:  ${Math.round(summary.committedOn).toLocaleString('en-US')}  (cost ${(summary.cost * 100).toFixed(1)} %, target < ${targets.cost * 100} %)`,
      `  relay lag p50 ${summary.p50LagMs.toFixed(1)} ms, p99 ${summary.p99LagMs.toFixed(1)} ms (target p99 < ${targets.p99LagMs} ms)`,
      ...results.map(
        (r, i) =>
          `  run ${i + 1}: off ${Math.round(r.committedOff)}, on ${Math.round(r.committedOn)}, lag p50 ${r.lag.p50Ms.toFixed(1)} / p99 ${r.lag.p99Ms.toFixed(1)} / max ${r.lag.maxMs.toFixed(1)} ms over ${r.lag.samples} messages at ${r.lag.offeredPerS} msg/s; missing on one side ${r.lag.missing}, duplicates ${r.lag.duplicates}`,
      ),
      '',
    ];
    process.stdout.write(lines.join('\n'));
    const dir = join(repoRoot, 'bench/results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `relay-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ summary, results }, null, 2));
  } finally {
    await cleanup();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`bench:relay failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
