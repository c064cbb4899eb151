/**
 * `npm run bench:webhooks` (issue 34): what webhooks cost ingest and how late they deliver. The platform runs in a
 * process of its own (compiled, as bench:ingest runs it), on the embedded path (SQLite, the embedded broker) or, with
 * BENCH_DATABASE_URL, on PostgreSQL and an external broker (platform.ts); the fleet runs in this process and the
 * receivers on loopback in a thread of their own (receiver-worker.ts). Each
 * figure is the median of BENCH_RUNS runs (3); ratios are to a run without webhooks in the same invocation.
 *
 * - latency: `message.stored`, one event per POST, arrays of 10 at BENCH_RATE msg/s (1000) for BENCH_WINDOW_S (5),
 *   after BENCH_WARM_UP_S (2) at that rate not measured: p50 and p99 from commit (the event's `timestamp`) to receipt;
 * - isolation: the same with a hung endpoint beside the healthy one: the healthy one's p99 against alone, and
 *   against a run beside a second healthy endpoint (what the second endpoint's outbox rows cost, hang or no hang);
 * - batched ingest: arrays of 10 as fast as the platform stores them (50 publishes in flight), BENCH_MESSAGES
 *   (20000) after a quarter as many not measured, with no endpoint and with a `batch_max_events: 100` endpoint: the
 *   ingest ratio, and the most events the receiver was behind (sampled every 100 ms);
 * - outage (BENCH_OUTAGE_RUNS, 1): the receiver down for BENCH_OUTAGE_S (60; the issue's 10 minutes scaled to what
 *   runs in a few minutes) at BENCH_OUTAGE_RATE msg/s (2000), one event per POST: ingest against the same run
 *   without webhooks, the platform process's highest RSS, then the rate at which
 *   the backlog drains once the receiver is back; BENCH_OUTAGE_CONCURRENCY (8, SPEC 11's default) is the
 *   platform's WEBHOOK_CONCURRENCY, which bounds the drain to that many POSTs in flight; BENCH_TRACE=1 prints the
 *   events received each second of the drain.
 *
 * BENCH_SCENARIOS (latency,isolation,ingest,outage) picks some. The platform, the fleet and the receivers share the
 * host's cores: on a busy host the figures say more about the host than the platform.
 */
import { rmSync } from 'node:fs';
import mqtt from 'mqtt';
import { preparePlatformEntry } from '../lib/node-entry.js';
import { killAll, killChildrenOnSignal } from '../lib/processes.js';
import { externalPath, startPlatform as startPlatformWith, type Platform } from './platform.js';
import { Receivers, type Receiver } from './receivers.js';

const numberFromEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const runs = numberFromEnv('BENCH_RUNS', 3);
const rate = numberFromEnv('BENCH_RATE', 1000);
const windowS = numberFromEnv('BENCH_WINDOW_S', 5);
const warmUpS = numberFromEnv('BENCH_WARM_UP_S', 2);
const batchedMessages = numberFromEnv('BENCH_MESSAGES', 20_000);
const outageRuns = numberFromEnv('BENCH_OUTAGE_RUNS', 1);
const outageS = numberFromEnv('BENCH_OUTAGE_S', 60);
const outageRate = numberFromEnv('BENCH_OUTAGE_RATE', 2000);
/** WEBHOOK_CONCURRENCY of the outage's platform: SPEC 11's default (8) unless set; the drain is at most this many POSTs in flight. */
const outageConcurrency = numberFromEnv('BENCH_OUTAGE_CONCURRENCY', 8);
const scenarios = new Set((process.env.BENCH_SCENARIOS ?? 'latency,isolation,ingest,outage').split(',').map((s) => s.trim()));

const receivers = new Receivers();
const entry = await preparePlatformEntry();
const startPlatform = (env: Record<string, string> = {}) => startPlatformWith(entry, env);

let tsm = 1_700_000_000;
const payload = (count: number) =>
  JSON.stringify(Array.from({ length: count }, (_, i) => ({ tsmId: 12100, tsmEv: 10, tsmTs: tsm++, tsmTuid: `B-${i % 100}`, temp: 21.5 })));

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const median = (values: number[]) => percentile(values, 50);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Publishes arrays of 10 at `perSecond` for `seconds`; resolves when all are acknowledged, with the achieved msg/s. */
async function publishAtRate(platform: Platform, perSecond: number, seconds: number): Promise<number> {
  const total = perSecond * seconds;
  const started = Date.now();
  const pending: Promise<unknown>[] = [];
  for (let sent = 0; sent < total; sent += 10) {
    const due = started + (sent / perSecond) * 1000;
    if (due > Date.now()) await sleep(due - Date.now());
    pending.push(platform.client.publishAsync(platform.topic, payload(10), { qos: 1 }));
  }
  await Promise.all(pending);
  await stored(platform, total);
  return total / ((Date.now() - started) / 1000);
}

/** Messages published to each platform so far (warm-ups included). */
const published = new WeakMap<Platform, number>();

/**
 * PostgreSQL + external broker: the broker acknowledged, so wait until the store holds the `total` just published
 * and all before them (embedded: it does).
 */
async function stored(platform: Platform, total: number): Promise<void> {
  const all = (published.get(platform) ?? 0) + total;
  published.set(platform, all);
  if (!externalPath) return;
  while ((await platform.storedMessages()) < all) await sleep(20);
}

/** Publishes `total` messages in arrays of 10 with at most 50 publishes in flight; answers stored msg/s. */
async function publishFlat(platform: Platform, total: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async (client: mqtt.MqttClient) => {
    while (next < total) {
      next += 10;
      await client.publishAsync(platform.topic, payload(10), { qos: 1 });
    }
  };
  await Promise.all(Array.from({ length: 50 }, () => worker(platform.client)));
  await stored(platform, total);
  return total / ((performance.now() - started) / 1000);
}

async function waitFor(probe: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await probe()) return true;
    await sleep(20);
  }
  return false;
}

/** The healthy endpoint's latency alone, or beside a second endpoint that hangs or that answers too. */
async function latencyRun(beside: 'nothing' | 'hung' | 'healthy'): Promise<{ p50: number; p99: number }> {
  const platform = await startPlatform();
  const healthy = await receivers.start();
  const second = beside === 'nothing' ? undefined : await receivers.start(beside === 'hung');
  try {
    await platform.api('POST', '/webhooks', { url: healthy.url, events: ['message.stored'] });
    if (second) await platform.api('POST', '/webhooks', { url: second.url, events: ['message.stored'] });
    // A warm-up at the same rate first, not measured: the first seconds of a fresh process are its compiler's.
    await publishAtRate(platform, rate, warmUpS);
    await waitFor(async () => (await healthy.events()) >= rate * warmUpS, 60_000);
    const warm = await healthy.events();
    const sent = rate * windowS;
    await publishAtRate(platform, rate, windowS);
    await waitFor(async () => (await healthy.events()) >= warm + sent, 60_000);
    const delays = (await healthy.delays()).slice(warm);
    return { p50: percentile(delays, 50), p99: percentile(delays, 99) };
  } finally {
    await platform.stop();
    await healthy.close();
    await second?.close();
  }
}

async function ingestRun(withWebhook: boolean): Promise<{ rate: number; behind: number }> {
  const platform = await startPlatform();
  const sink = await receivers.start();
  let behind = 0;
  let sampling = true;
  try {
    if (withWebhook)
      await platform.api('POST', '/webhooks', { url: sink.url, events: ['message.stored'], batch_max_events: 100, batch_max_wait_ms: 200 });
    // A warm-up (a quarter of the messages, not measured), as in the latency runs.
    const warmUp = Math.round(batchedMessages / 4 / 10) * 10;
    await publishFlat(platform, warmUp);
    if (withWebhook) await waitFor(async () => (await sink.events()) >= warmUp, 60_000);
    const started = tsm;
    const publishing = publishFlat(platform, batchedMessages);
    const watch = (async () => {
      while (sampling && withWebhook) {
        await sleep(100);
        behind = Math.max(behind, tsm - started - ((await sink.events()) - warmUp));
      }
    })();
    const measured = await publishing;
    sampling = false;
    await watch;
    if (withWebhook) await waitFor(async () => (await sink.events()) >= warmUp + batchedMessages, 60_000);
    return { rate: measured, behind };
  } finally {
    await platform.stop();
    await sink.close();
  }
}

async function outageRun(withWebhook: boolean): Promise<{ rate: number; rssMb: number; drainPerS: number }> {
  const platform = await startPlatform({ WEBHOOK_CONCURRENCY: String(outageConcurrency) });
  const sink: Receiver = await receivers.start();
  try {
    if (withWebhook) await platform.api('POST', '/webhooks', { url: sink.url, events: ['message.stored'] });
    await sink.down();
    const achieved = await publishAtRate(platform, outageRate, outageS);
    let drainPerS = Number.NaN;
    if (withWebhook) {
      const total = outageRate * outageS;
      const back = performance.now();
      await sink.up();
      const since = () => ((performance.now() - back) / 1000).toFixed(1);
      const trace = process.env.BENCH_TRACE
        ? setInterval(() => void sink.events().then((n) => process.stdout.write(`    drain +${since()} s: ${n} received\n`)), 1000)
        : undefined;
      const drained = await waitFor(async () => (await sink.events()) >= total, 600_000);
      clearInterval(trace);
      drainPerS = drained ? total / ((performance.now() - back) / 1000) : Number.NaN;
    }
    return { rate: achieved, rssMb: platform.peakRssMiB(), drainPerS };
  } finally {
    await platform.stop();
    await sink.close();
  }
}

const results: Record<string, number[]> = {};
const record = (name: string, value: number) => {
  (results[name] ??= []).push(value);
  process.stdout.write(`  ${name}: ${value.toFixed(name.includes('ratio') ? 3 : 1)}\n`);
};
const removeBuild = async () => {
  if (entry.buildDir) rmSync(entry.buildDir, { recursive: true, force: true });
};
killChildrenOnSignal(removeBuild);
try {
  for (let run = 1; run <= runs; run++) {
    if (scenarios.has('latency') || scenarios.has('isolation')) {
      const alone = await latencyRun('nothing');
      record('latency p50 ms', alone.p50);
      record('latency p99 ms', alone.p99);
      if (scenarios.has('isolation')) {
        const beside = await latencyRun('hung');
        record('beside a hung endpoint p99 ms', beside.p99);
        record('hung/alone p99 ratio', beside.p99 / alone.p99);
        // What a second endpoint costs by its outbox rows alone, hang or no hang.
        const pair = await latencyRun('healthy');
        record('beside a healthy endpoint p99 ms', pair.p99);
        record('hung/healthy-beside p99 ratio', beside.p99 / pair.p99);
      }
    }
    if (scenarios.has('ingest')) {
      const without = await ingestRun(false);
      const withHook = await ingestRun(true);
      record('ingest msg/s without webhooks', without.rate);
      record('ingest msg/s with a batch-100 endpoint', withHook.rate);
      record('ingest ratio', withHook.rate / without.rate);
      record('most events the receiver was behind', withHook.behind);
    }
    if (scenarios.has('outage') && run <= outageRuns) {
      const without = await outageRun(false);
      const down = await outageRun(true);
      record(`outage ${outageS} s: ingest msg/s without webhooks`, without.rate);
      record(`outage ${outageS} s: ingest msg/s receiver down`, down.rate);
      record(`outage ${outageS} s: ingest ratio`, down.rate / without.rate);
      record(`outage ${outageS} s: platform's highest RSS MiB (without)`, without.rssMb);
      record(`outage ${outageS} s: platform's highest RSS MiB (receiver down, drain)`, down.rssMb);
      record(`outage ${outageS} s: drain events/s`, down.drainPerS);
    }
    process.stdout.write(`run ${run}/${runs} done\n`);
  }
} finally {
  // A run that fails leaves no platform process behind (each one holds a port and a core's worth of threads).
  await killAll();
  await receivers.stop();
  await removeBuild();
}
const path = externalPath ? 'PostgreSQL + external broker' : 'embedded (SQLite + embedded broker)';
process.stdout.write(
  `\nbench:webhooks, ${path}, ${entry.note} (medians of ${runs}, outage of ${outageRuns}; ${rate} msg/s for ${windowS} s; ${batchedMessages} batched messages; outage ${outageS} s at ${outageRate} msg/s, WEBHOOK_CONCURRENCY ${outageConcurrency})\n`,
);
for (const [name, values] of Object.entries(results))
  process.stdout.write(`  ${name.padEnd(52)} ${median(values).toFixed(name.includes('ratio') ? 3 : 1)}\n`);
process.exit(0);
