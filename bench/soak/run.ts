/**
 * `npm run bench:soak`: ten minutes (SOAK_DURATION_S) of a simulated fleet publishing at a steady rate, plus REST
 * and GraphQL readers, against the platform in its own process on SQLite. Every SOAK_SAMPLE_S it prints
 * throughput, error counts and the platform's RSS; at the end it fits a line through the RSS samples of the
 * second half and reports the slope: a leak shows as steady growth after the warm-up, not as the first minutes'
 * rise while caches fill.
 *
 * `npm run bench:soak -- --hostile` (or SOAK_HOSTILE=1) adds an attacker (hostile.ts, in a process of its own,
 * hostile-process.ts, so its queueing is not counted as the platform's). The run then alternates calm and hostile
 * phases of SOAK_PHASE_S, starting calm, and compares the legitimate latencies of the two kinds of phase: REST and
 * GraphQL readers, and a probe gateway's publish-to-PUBACK time (probe.ts, in a process of its own too,
 * probe-process.ts). Alternating, rather than one run with and one without, puts both under the same warm-up, store
 * size and machine noise. It passes when every p50 and p99 under attack is within 2x of its calm value and RSS stays
 * under 400 MB.
 *
 * `--duration=S` and `--phase=S` (seconds) override SOAK_DURATION_S and SOAK_PHASE_S; `--short` is a run of a few
 * minutes (180 s in phases of 30 s, samples every 15 s), enough to see each hostile phase twice.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startFleet } from '../../src/simulator/index.js';
import { LatencyRecorder, type LatencySummary } from '../../src/simulator/latency-recorder.js';
import { benchBootstrap, benchOrganizationId, spawnPlatform } from '../ingest/spawn-platform.js';
import { preparePlatformEntry, repoRoot } from '../lib/node-entry.js';
import { killAll, killChildrenOnSignal, sleep } from '../lib/processes.js';
import { readMemoryMiB } from '../lib/proc-stats.js';
import { delta, scrapeMetrics } from '../lib/prometheus.js';
import { type HostileClient } from './hostile.js';
import { forkHostile } from './hostile-process.js';
import { forkPublishProbe } from './probe-process.js';
import { startReader } from './readers.js';

/** The value of `--name=value` on the command line, if given. */
const flag = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const short = process.argv.includes('--short');
const durationS = Number(flag('duration') ?? (short ? 180 : (process.env.SOAK_DURATION_S ?? 600)));
const sampleS = Number(process.env.SOAK_SAMPLE_S ?? (short ? 15 : 30));
const rate = Number(process.env.SOAK_RATE ?? 2000);
// RSS may grow this much per hour over the second half before the run counts as leaking.
const leakMiBPerHour = Number(process.env.SOAK_LEAK_MIB_PER_HOUR ?? 20);
const hostileMode = process.argv.includes('--hostile') || process.env.SOAK_HOSTILE === '1';
const phaseS = Number(flag('phase') ?? (short ? 30 : (process.env.SOAK_PHASE_S ?? 60)));
const rssLimitMiB = Number(process.env.SOAK_RSS_LIMIT_MIB ?? 400);
// Under attack, a legitimate latency may be at most this many times its calm value.
const allowedSlowdown = 2;

type Phase = 'calm' | 'hostile';
type LatencyKind = 'REST' | 'GraphQL' | 'publish';

interface Sample {
  atS: number;
  rssMiB: number;
  storedPerS: number;
  restOkPerS: number;
  graphqlOkPerS: number;
  restErrors: number;
  graphqlErrors: number;
  fleetErrors: number;
}

async function main(): Promise<void> {
  killChildrenOnSignal(async () => undefined);
  const entry = await preparePlatformEntry();
  // Rate limits at the configuration's maximum: the readers must not be throttled. The default log level is kept:
  // spawnPlatform waits for the "listening" line, logged at info.
  const platform = await spawnPlatform(entry, { RATE_LIMIT_PER_TOKEN: '10000000', RATE_LIMIT_PER_ADDRESS: '10000000' });
  const base = `http://127.0.0.1:${platform.httpPort}`;
  console.log(
    `soak: ${durationS} s, fleet ${rate} msg/s (100 gateways, 2000 devices), 4 REST + 4 GraphQL readers, a probe gateway; samples every ${sampleS} s`,
  );
  if (hostileMode) console.log(`hostile: calm and hostile phases of ${phaseS} s in turn, starting calm`);
  // A latency is recorded under the phase running when its answer *arrived*: an answer slowed by the attack that
  // arrives just after the switch counts against calm, which only makes the comparison stricter.
  let phase: Phase = 'calm';
  const latencies = new Map<string, LatencyRecorder>();
  const recordIn = (kind: LatencyKind) => {
    return (milliseconds: number) => {
      const key = `${kind}/${phase}`;
      let recorder = latencies.get(key);
      if (!recorder) latencies.set(key, (recorder = new LatencyRecorder()));
      recorder.record(milliseconds);
    };
  };
  try {
    const fleet = await startFleet({
      url: `mqtt://127.0.0.1:${platform.mqttPort}`,
      username: benchBootstrap.BOOTSTRAP_MQTT_USERNAME,
      password: benchBootstrap.BOOTSTRAP_MQTT_PASSWORD,
      organizationId: benchOrganizationId,
      gateways: 100,
      devices: 2000,
      rate,
      batchSize: 10,
      tuidPrefix: 'SOAK',
      protocolVersion: 4,
    });
    // Readers pick random devices: wait until every device has reported once, so none of their reads is a 404.
    await waitForThings(`http://127.0.0.1:${platform.httpPort}`, fleet.deviceTuids.length);
    // Tokens live 15 minutes; renew them every 10 so longer soaks do not turn into a stream of 401s.
    let restToken = await clientToken(base);
    let graphqlToken = await accessToken(base);
    // The hostile reads come from a Viewer of the organization: the least a signed-in attacker needs.
    const viewer = hostileMode ? await createViewer(base, graphqlToken) : undefined;
    let viewerToken = viewer ? await accessToken(base, viewer) : '';
    let attacker: ReturnType<typeof forkHostile> | undefined;
    const renew = setInterval(() => {
      void clientToken(base).then((token) => (restToken = token));
      void Promise.all([
        accessToken(base).then((token) => (graphqlToken = token)),
        viewer ? accessToken(base, viewer).then((token) => (viewerToken = token)) : undefined,
      ]).then(() => attacker?.setTokens({ access: graphqlToken, viewer: viewerToken }));
    }, 600_000);
    const tuids = fleet.deviceTuids;
    const pick = () => tuids[Math.floor(Math.random() * tuids.length)]!;
    const rest = startReader(
      4,
      () =>
        fetch(`${base}/api/v1/things/${pick()}${Math.random() < 0.5 ? '' : '/messages?limit=100'}`, {
          headers: { authorization: `Bearer ${restToken}` },
        }),
      recordIn('REST'),
    );
    const graphql = startReader(
      4,
      () =>
        fetch(`${base}/v1/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${graphqlToken}` },
          body: JSON.stringify({
            query: 'query($t: ID!) { thing(tuid: $t) { tuid batteryLevel timestamp version } messages(tuid: $t, limit: 20) }',
            variables: { t: pick() },
          }),
        }),
      recordIn('GraphQL'),
    );
    const probe = await forkPublishProbe(
      {
        url: `mqtt://127.0.0.1:${platform.mqttPort}`,
        username: benchBootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: benchBootstrap.BOOTSTRAP_MQTT_PASSWORD,
        organizationId: benchOrganizationId,
        intervalMs: 50,
      },
      recordIn('publish'),
    );
    const attacks: HostileClient['counts'][] = [];
    const switchPhase = async () => {
      if (attacker) {
        await attacker.stop();
        attacks.push(attacker.counts);
        attacker = undefined;
        phase = 'calm';
      } else {
        phase = 'hostile';
        attacker = forkHostile({
          httpBase: base,
          mqttHost: '127.0.0.1',
          mqttPort: platform.mqttPort!,
          organizationId: benchOrganizationId,
          mqttUsername: benchBootstrap.BOOTSTRAP_MQTT_USERNAME,
          mqttPassword: benchBootstrap.BOOTSTRAP_MQTT_PASSWORD,
          tokens: { access: graphqlToken, viewer: viewerToken },
          httpPerSecond: 200,
          tuids,
          organizationName: benchBootstrap.BOOTSTRAP_ORG,
        });
      }
      console.log(`-- ${phase} phase`);
    };
    let phaseSwitching = Promise.resolve();
    const phases = hostileMode ? setInterval(() => (phaseSwitching = phaseSwitching.then(switchPhase)), phaseS * 1000) : undefined;

    const samples: Sample[] = [];
    const startedAt = Date.now();
    let previous = { scrape: await scrapeMetrics(platform.metricsUrl), rest: 0, graphql: 0, at: Date.now() };
    console.log('   time   RSS MiB   stored/s   REST ok/s   GraphQL ok/s   REST err   GraphQL err   fleet err');
    while (Date.now() - startedAt < durationS * 1000) {
      await sleep(Math.min(sampleS * 1000, durationS * 1000 - (Date.now() - startedAt)));
      const scrape = await scrapeMetrics(platform.metricsUrl);
      const now = Date.now();
      const seconds = (now - previous.at) / 1000;
      const sample: Sample = {
        atS: Math.round((now - startedAt) / 1000),
        rssMiB: readMemoryMiB(platform.process.pid)?.rss ?? Number.NaN,
        storedPerS: delta(previous.scrape, scrape, 'thingdesk_ingest_stored_total') / seconds,
        restOkPerS: (rest.counts.ok - previous.rest) / seconds,
        graphqlOkPerS: (graphql.counts.ok - previous.graphql) / seconds,
        restErrors: rest.counts.errors,
        graphqlErrors: graphql.counts.errors,
        fleetErrors: fleet.progress().errors,
      };
      samples.push(sample);
      previous = { scrape, rest: rest.counts.ok, graphql: graphql.counts.ok, at: now };
      console.log(
        `${String(sample.atS).padStart(6)} s ${sample.rssMiB.toFixed(1).padStart(8)} ${sample.storedPerS.toFixed(0).padStart(10)} ${sample.restOkPerS.toFixed(0).padStart(11)} ${sample.graphqlOkPerS.toFixed(0).padStart(14)} ${String(sample.restErrors).padStart(10)} ${String(sample.graphqlErrors).padStart(13)} ${String(sample.fleetErrors).padStart(11)}`,
      );
    }
    clearInterval(renew);
    clearInterval(phases);
    await phaseSwitching;
    if (attacker) {
      await attacker.stop();
      attacks.push(attacker.counts);
    }
    await rest.stop();
    await graphql.stop();
    await probe.stop();
    const report = await fleet.stop();

    const secondHalf = samples.filter((s) => s.atS >= durationS / 2);
    const slopeMiBPerHour = robustSlope(secondHalf.map((s) => [s.atS, s.rssMiB])) * 3600;
    const flat = Number.isFinite(slopeMiBPerHour) && slopeMiBPerHour <= leakMiBPerHour;
    const errors = { rest: [...rest.counts.failures], graphql: [...graphql.counts.failures], fleet: report.errors };
    console.log('');
    console.log(
      `fleet: ${report.messagesAcked} messages acknowledged, ${report.errors} errors; REST ${rest.counts.ok} ok / ${rest.counts.errors} errors; GraphQL ${graphql.counts.ok} ok / ${graphql.counts.errors} errors`,
    );
    if (rest.counts.errors || graphql.counts.errors) console.log(`errors by kind: ${JSON.stringify(errors)}`);
    console.log(
      `RSS: first ${samples[0]?.rssMiB.toFixed(1)} MiB, last ${samples.at(-1)?.rssMiB.toFixed(1)} MiB, max ${Math.max(...samples.map((s) => s.rssMiB)).toFixed(1)} MiB`,
    );
    console.log(
      `RSS slope over the second half (Theil–Sen): ${slopeMiBPerHour.toFixed(1)} MiB/hour (limit ${leakMiBPerHour}): ${flat ? 'flat, no leak seen' : 'GROWING: investigate'}`,
    );
    const maxRssMiB = Math.max(...samples.map((s) => s.rssMiB));
    const latencyReport = summarizeLatencies(latencies);
    printLatencies(latencyReport);
    let withinBudget = true;
    if (hostileMode) {
      printAttacks(attacks);
      withinBudget = latencyReport.every(
        (row) => row.hostile === undefined || (row.ratioP50 <= allowedSlowdown && row.ratioP99 <= allowedSlowdown),
      );
      const rssOk = maxRssMiB < rssLimitMiB;
      console.log(
        `under attack: every legitimate p50 and p99 within ${allowedSlowdown}x of calm: ${withinBudget ? 'yes' : 'NO'}; max RSS ${maxRssMiB.toFixed(1)} MiB < ${rssLimitMiB}: ${rssOk ? 'yes' : 'NO'}`,
      );
      withinBudget &&= rssOk;
    }
    console.log('Figures vary about 20 % from run to run on this machine; the slope is what matters.');
    const resultsDir = join(repoRoot, 'bench/results');
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(
      join(resultsDir, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
      JSON.stringify(
        {
          durationS,
          rate,
          hostileMode,
          samples,
          slopeMiBPerHour,
          flat,
          errors,
          report,
          latencies: latencyReport,
          attacks: attacks.map(countsToJson),
        },
        null,
        2,
      ),
    );
    if (!flat || !withinBudget || rest.counts.errors + graphql.counts.errors + probe.errors > 0) process.exitCode = 1;
  } finally {
    await platform.stop();
    await killAll();
  }
}

interface LatencyRow {
  kind: LatencyKind;
  calm: LatencySummary | undefined;
  hostile: LatencySummary | undefined;
  ratioP50: number;
  ratioP99: number;
}

function summarizeLatencies(latencies: Map<string, LatencyRecorder>): LatencyRow[] {
  return (['REST', 'GraphQL', 'publish'] as const).map((kind) => {
    const calm = latencies.get(`${kind}/calm`)?.summarize();
    const hostile = latencies.get(`${kind}/hostile`)?.summarize();
    const ratio = (under?: number, base?: number) => (under !== undefined && base ? under / base : Number.NaN);
    return { kind, calm, hostile, ratioP50: ratio(hostile?.p50, calm?.p50), ratioP99: ratio(hostile?.p99, calm?.p99) };
  });
}

function printLatencies(rows: LatencyRow[]): void {
  const cell = (summary?: LatencySummary) => (summary ? `${summary.p50.toFixed(1)} / ${summary.p99.toFixed(1)}` : '-').padStart(17);
  console.log('latency ms         calm p50 / p99   hostile p50 / p99   ratio p50   ratio p99');
  for (const row of rows) {
    const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : '-').padStart(11);
    console.log(`${row.kind.padEnd(10)} ${cell(row.calm)}   ${cell(row.hostile)} ${ratio(row.ratioP50)} ${ratio(row.ratioP99)}`);
  }
}

function printAttacks(phases: HostileClient['counts'][]): void {
  const totals = new Map<string, Map<string, number>>();
  for (const counts of phases) {
    for (const [attack, { outcomes }] of counts) {
      const total = totals.get(attack) ?? new Map<string, number>();
      for (const [outcome, count] of outcomes) total.set(outcome, (total.get(outcome) ?? 0) + count);
      totals.set(attack, total);
    }
  }
  console.log('attacks (all hostile phases): attempts by outcome');
  for (const [attack, outcomes] of totals) {
    const attempts = [...outcomes.values()].reduce((sum, count) => sum + count, 0);
    console.log(
      `  ${attack.padEnd(22)} ${String(attempts).padStart(7)}  ${[...outcomes].map(([outcome, count]) => `${outcome}: ${count}`).join(', ')}`,
    );
  }
}

function countsToJson(counts: HostileClient['counts']): Record<string, Record<string, number>> {
  return Object.fromEntries([...counts].map(([attack, { outcomes }]) => [attack, Object.fromEntries(outcomes)]));
}

/**
 * Theil–Sen slope of y over x: the median of the slopes between every pair of samples. RSS jumps for a sample
 * or two whenever the garbage collector runs late; a least-squares line lets one such spike at the end read as a
 * leak, the median of pairwise slopes does not, while steady growth still shows in full.
 */
function robustSlope(points: [number, number][]): number {
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const [xi, yi] = points[i]!;
      const [xj, yj] = points[j]!;
      if (xj !== xi) slopes.push((yj - yi) / (xj - xi));
    }
  }
  if (slopes.length === 0) return Number.NaN;
  slopes.sort((a, b) => a - b);
  const middle = Math.floor(slopes.length / 2);
  return slopes.length % 2 ? slopes[middle]! : (slopes[middle - 1]! + slopes[middle]!) / 2;
}

/** Waits until the platform lists every simulated device as a thing (each has sent its first report). */
async function waitForThings(base: string, devices: number): Promise<void> {
  const token = await clientToken(base);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    let seen = 0;
    let cursor: string | null = null;
    do {
      const page: Response = await fetch(`${base}/api/v1/things?limit=1000${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const data = ((await page.json()) as { data: { things: { tuid: string }[]; next_cursor: string | null } }).data;
      seen += data.things.filter((thing) => !thing.tuid.includes('-GW-')).length;
      cursor = data.next_cursor;
    } while (cursor);
    if (seen >= devices) return;
    await sleep(1000);
  }
  throw new Error(`not every simulated device was seen within 120 s`);
}

async function clientToken(base: string): Promise<string> {
  const response = await fetch(`${base}/api/v1/auth/client-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: benchBootstrap.BOOTSTRAP_CLIENT_ID, client_secret: benchBootstrap.BOOTSTRAP_CLIENT_SECRET }),
  });
  return ((await response.json()) as { data: { token: string } }).data.token;
}

interface Credentials {
  email: string;
  password: string;
}

/** An access token of the bootstrap Manager, or of `user`. */
async function accessToken(
  base: string,
  user: Credentials = { email: benchBootstrap.BOOTSTRAP_EMAIL, password: benchBootstrap.BOOTSTRAP_PASSWORD },
): Promise<string> {
  const response = await fetch(`${base}/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation($i: LoginInput!) { login(loginInput: $i) { accessToken } }',
      variables: { i: { ...user, organizationName: benchBootstrap.BOOTSTRAP_ORG } },
    }),
  });
  return ((await response.json()) as { data: { login: { accessToken: string } } }).data.login.accessToken;
}

/** A Viewer of the bench organization, created by the Manager signed in with `managerToken`. */
async function createViewer(base: string, managerToken: string): Promise<Credentials> {
  const viewer = { email: 'hostile-viewer@bench.test', password: 'hostile-viewer-password' };
  const response = await fetch(`${base}/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${managerToken}` },
    body: JSON.stringify({
      query: 'mutation($e: String!, $p: String!) { createUser(email: $e, password: $p, role: VIEWER) { email } }',
      variables: { e: viewer.email, p: viewer.password },
    }),
  });
  const body = (await response.json()) as { errors?: unknown[] };
  if (body.errors) throw new Error(`creating the hostile Viewer failed: ${JSON.stringify(body.errors)}`);
  return viewer;
}

await main();
