/**
 * Ingest beside an import (issue 36: "ingest running beside it at 2,000 msg/s keeps its p99 acknowledgement within
 * 2x"). `thingdesk serve` in its own process; in this one a fleet (100 gateways, 10,000 devices, QoS 1) publishing
 * at BENCH_INGEST_RATE (2,000) messages a second, its publish-to-PUBACK latency recorded by the simulator. Each run:
 * a calm window of BENCH_WINDOW_S (15) seconds, then a fresh fleet while a file of PROVISIONING_ROWS (100,000) new
 * things is planned (`?dry_run=true`) and applied through `POST /api/v1/things/import`, as an API client sends it;
 * the fleet stops when the apply has answered. Reported per run and as medians of BENCH_RUNS (3): p50/p99 of both
 * windows, the p99 ratio, the import's times, the platform's RSS growth over each import (peak over its start) and
 * the plan's bytes. The answer is read as a stream and not parsed (48 MB of JSON parsed here would stall this
 * process's event loop and count as ingest latency).
 *
 * SQLite + embedded broker always (acknowledgement after commit); PostgreSQL + an external broker when
 * BENCH_DATABASE_URL is set, as bench:ingest runs it (bench/ingest/postgres-variant.ts: its own Mosquitto or
 * BENCH_MQTT_URL / 127.0.0.1:1883), where the broker acknowledges on receipt.
 *
 *   npm run bench:provisioning:ingest
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:provisioning:ingest
 */
import { loadavg } from 'node:os';
import { rmSync } from 'node:fs';
import { startFleet, type FleetOptions, type LatencySummary } from '../../src/simulator/index.js';
import { externalPlatformEnv, externalSkipReason, prepareExternalTarget, type ExternalTarget } from '../ingest/postgres-variant.js';
import { benchBootstrap, benchOrganizationId, spawnPlatform, type RunningPlatform } from '../ingest/spawn-platform.js';
import { preparePlatformEntry, type PlatformEntry } from '../lib/node-entry.js';
import { readMemoryMiB, RssSampler } from '../lib/proc-stats.js';
import { killAll, killChildrenOnSignal, sleep } from '../lib/processes.js';

const numberFromEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const rows = numberFromEnv('PROVISIONING_ROWS', 100_000);
const runs = numberFromEnv('BENCH_RUNS', 3);
const rate = numberFromEnv('BENCH_INGEST_RATE', 2000);
const windowS = numberFromEnv('BENCH_WINDOW_S', 15);
const warmupS = numberFromEnv('BENCH_WARMUP_S', 10);
const platformEnv = Object.fromEntries(
  (process.env.BENCH_PLATFORM_ENV ?? '')
    .split(/\s+/)
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const log = (text: string) => process.stderr.write(`bench: ${text}\n`);

interface RunFigures {
  calm: LatencySummary;
  during: LatencySummary;
  calmAcked: number;
  duringAcked: number;
  planS: number;
  applyS: number;
  planRssMiB: number;
  applyRssMiB: number;
  planBytes: number;
  errors: number;
}

/** A delivery list as bench/provisioning/run.ts writes it: name, one of 20 groups, installed, a site and a room. */
function file(prefix: string): Buffer {
  const lines = ['tuid,name,group_id,installation_status,label.site,label.room'];
  for (let i = 0; i < rows; i += 1)
    lines.push(`${prefix}-${String(i).padStart(6, '0')},"Sensor ${i}, hall",g-${i % 20},installed,site-${i % 100},r-${i % 37}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function clientToken(base: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${base}/api/v1/auth/client-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: clientId, client_secret: clientSecret }),
  });
  if (!response.ok) throw new Error(`client token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: { token: string } }).data.token;
}

/** One import request; the answer streamed through and counted, its counts read from its head. */
async function postImport(
  base: string,
  token: string,
  body: Buffer,
  dryRun: boolean,
  pid: number,
): Promise<{ seconds: number; bytes: number; rssMiB: number }> {
  const rssStart = readMemoryMiB(pid)?.rss ?? 0;
  const rss = new RssSampler(pid, false, 50);
  const started = performance.now();
  const response = await fetch(`${base}/api/v1/things/import?create_groups=true${dryRun ? '&dry_run=true' : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'text/csv', authorization: `Bearer ${token}` },
    body,
  });
  let bytes = 0;
  let head = '';
  for await (const chunk of response.body!) {
    bytes += chunk.length;
    if (head.length < 400) head += Buffer.from(chunk).toString('utf8', 0, 400);
  }
  const seconds = (performance.now() - started) / 1000;
  const rssMiB = rss.stop() - rssStart;
  if (!response.ok) throw new Error(`import (dry run ${dryRun}): ${response.status} ${head.slice(0, 400)}`);
  const counts = /"counts":\{[^}]*\}/.exec(head)?.[0] ?? '';
  if (!counts.includes(`"create":${rows}`))
    throw new Error(`import (dry run ${dryRun}): unexpected counts ${counts || head.slice(0, 200)}`);
  return { seconds, bytes, rssMiB };
}

/** Waits until /healthz answers within 100 ms three times in a row (at most two minutes). */
async function untilResponsive(base: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (let quick = 0; quick < 3 && Date.now() < deadline;) {
    const started = performance.now();
    const ok = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(10_000) }).then(
      (response) => response.ok,
      () => false,
    );
    quick = ok && performance.now() - started < 100 ? quick + 1 : 0;
    await sleep(500);
  }
}

async function measureStore(
  name: string,
  platform: RunningPlatform & { workDir: string },
  fleetBase: FleetOptions,
  token: string,
): Promise<RunFigures[]> {
  const base = `http://127.0.0.1:${platform.httpPort}`;
  const figures: RunFigures[] = [];
  let errors = 0;
  const onError = () => {
    errors += 1;
  };
  // The things are claimed and the code warmed before anything is measured.
  await untilResponsive(base);
  log(`${name}: warm-up fleet ${warmupS} s at ${rate} msg/s`);
  const warmup = await startFleet({ ...fleetBase, durationS: 0, onError });
  await sleep(warmupS * 1000);
  await warmup.stop();
  await untilResponsive(base);
  let reportsAfterTs = warmup.lastReportTs();
  for (let run = 0; run < runs; run += 1) {
    const body = file(`IMP${run}`);
    errors = 0;
    const calmFleet = await startFleet({ ...fleetBase, reportsAfterTs, durationS: 0, onError });
    await sleep(windowS * 1000);
    const calm = await calmFleet.stop();
    reportsAfterTs = calmFleet.lastReportTs();
    const duringFleet = await startFleet({ ...fleetBase, reportsAfterTs, durationS: 0, onError });
    // A second of the fleet alone, so the import starts beside a running fleet rather than with its connections.
    await sleep(1000);
    // Acknowledgements a second in each phase: where the latency comes from (a stall shows as a rate far below the fleet's).
    const ackedAt = () => duringFleet.progress().messagesAcked;
    const beforePlan = ackedAt();
    const plan = await postImport(base, token, body, true, platform.process.pid);
    const afterPlan = ackedAt();
    const apply = await postImport(base, token, body, false, platform.process.pid);
    const ackedPerS = { plan: (afterPlan - beforePlan) / plan.seconds, apply: (ackedAt() - afterPlan) / apply.seconds };
    const during = await duringFleet.stop();
    reportsAfterTs = duringFleet.lastReportTs();
    // After the commit the platform announces 100,000 thing.changed: the next calm window starts once it answers again.
    await untilResponsive(base);
    const run_: RunFigures = {
      calm: calm.ackLatencyMs,
      during: during.ackLatencyMs,
      calmAcked: calm.messagesPerSecond,
      duringAcked: during.messagesPerSecond,
      planS: plan.seconds,
      applyS: apply.seconds,
      planRssMiB: plan.rssMiB,
      applyRssMiB: apply.rssMiB,
      planBytes: plan.bytes,
      errors,
    };
    figures.push(run_);
    console.log(
      `${name.padEnd(34)} run ${run + 1}: calm p50 ${calm.ackLatencyMs.p50} p99 ${calm.ackLatencyMs.p99} ms (${calm.messagesPerSecond.toFixed(0)}/s); ` +
        `import p50 ${during.ackLatencyMs.p50} p99 ${during.ackLatencyMs.p99} max ${during.ackLatencyMs.max} ms (${during.messagesPerSecond.toFixed(0)}/s); ` +
        `p99 ratio ${(during.ackLatencyMs.p99 / calm.ackLatencyMs.p99).toFixed(2)}; plan ${plan.seconds.toFixed(2)} s (${ackedPerS.plan.toFixed(0)} acks/s), ` +
        `apply ${apply.seconds.toFixed(2)} s (${ackedPerS.apply.toFixed(0)} acks/s); ` +
        `RSS +${plan.rssMiB.toFixed(0)} / +${apply.rssMiB.toFixed(0)} MiB; plan ${(plan.bytes / 1e6).toFixed(1)} MB; errors ${errors}; load ${loadavg()[0]!.toFixed(2)}`,
    );
  }
  const m = (pick: (f: RunFigures) => number) => median(figures.map(pick));
  console.log(
    `${name.padEnd(34)} median of ${runs}: calm p50 ${m((f) => f.calm.p50)} p99 ${m((f) => f.calm.p99)} ms; import p50 ${m((f) => f.during.p50)} ` +
      `p99 ${m((f) => f.during.p99)} ms; p99 ratio ${m((f) => f.during.p99 / f.calm.p99).toFixed(2)} (target <= 2); plan + apply ` +
      `${m((f) => f.planS + f.applyS).toFixed(2)} s; RSS growth plan ${m((f) => f.planRssMiB).toFixed(0)} / apply ${m((f) => f.applyRssMiB).toFixed(0)} MiB`,
  );
  return figures;
}

// On a host loaded far past its cores a gateway's CONNACK can take over the simulator's 10 s: mqtt.js then emits an
// error with no listener left and retries (reconnectPeriod). Counted and reported rather than ending the run.
let connackTimeouts = 0;
process.on('uncaughtException', (error) => {
  if (error.message !== 'connack timeout') throw error;
  connackTimeouts += 1;
});

async function main(): Promise<void> {
  let entry: PlatformEntry | undefined;
  let external: ExternalTarget | undefined;
  const cleanup = async () => {
    await external?.cleanup();
    if (entry?.buildDir) rmSync(entry.buildDir, { recursive: true, force: true });
  };
  killChildrenOnSignal(cleanup);
  const fleetShape = {
    gateways: 100,
    devices: 10_000,
    rate,
    qos: 1 as const,
    maxInFlight: 100,
    protocolVersion: 5 as const,
    tuidPrefix: 'ING',
  };
  // The rate limiter must not cap the bench; the alert engine's timer must not fall in some windows and not others.
  const env = {
    RATE_LIMIT_PER_TOKEN: '10000000',
    RATE_LIMIT_PER_ADDRESS: '10000000',
    ALERT_INTERVAL_S: '3600',
    LOG_LEVEL: 'info',
    ...platformEnv,
  };
  try {
    entry = await preparePlatformEntry();
    console.log(
      `ingest at ${rate} msg/s beside an import of ${rows.toLocaleString('en-US')} rows (plan + apply over HTTP), ${runs} runs, ` +
        `calm window ${windowS} s; ${entry.note}; load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    if (process.env.BENCH_SKIP !== 'embedded') {
      const platform = await spawnPlatform(entry, env);
      try {
        const token = await clientToken(
          `http://127.0.0.1:${platform.httpPort}`,
          benchBootstrap.BOOTSTRAP_CLIENT_ID,
          benchBootstrap.BOOTSTRAP_CLIENT_SECRET,
        );
        await measureStore(
          'SQLite + embedded broker',
          platform,
          {
            ...fleetShape,
            url: `mqtt://127.0.0.1:${platform.mqttPort}`,
            username: benchBootstrap.BOOTSTRAP_MQTT_USERNAME,
            password: benchBootstrap.BOOTSTRAP_MQTT_PASSWORD,
            organizationId: benchOrganizationId,
          },
          token,
        );
      } finally {
        await platform.stop();
        rmSync(platform.workDir, { recursive: true, force: true });
      }
    }
    const reason = await externalSkipReason();
    if (reason !== undefined) log(`PostgreSQL skipped: ${reason}`);
    else {
      external = await prepareExternalTarget();
      const platform = await spawnPlatform(entry, {
        ...env,
        ...externalPlatformEnv(external),
      });
      try {
        const token = await clientToken(
          `http://127.0.0.1:${platform.httpPort}`,
          benchBootstrap.BOOTSTRAP_CLIENT_ID,
          benchBootstrap.BOOTSTRAP_CLIENT_SECRET,
        );
        await measureStore(
          `PostgreSQL + ${external.brokerNote.startsWith('the bench') ? 'own Mosquitto' : external.mqttUrl}`,
          platform,
          { ...fleetShape, url: external.mqttUrl, organizationId: external.organizationId },
          token,
        );
      } finally {
        await platform.stop();
        await external.endSessions();
        rmSync(platform.workDir, { recursive: true, force: true });
      }
    }
  } finally {
    if (connackTimeouts > 0) log(`${connackTimeouts} gateway connections timed out waiting for their CONNACK and were retried`);
    await killAll();
    await cleanup();
  }
}

await main();
