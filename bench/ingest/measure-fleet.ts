/**
 * One fleet scenario against one broker: a warm-up fleet, then a fresh measured fleet whose figures are taken
 * over a window that starts after it settled. The fresh fleet gives a latency sample free of the warm-up (JIT,
 * 10,000 things claimed on their first message); the warm-up used the same TUIDs, so the things already exist.
 */
import { startFleet, type FleetOptions, type LatencySummary } from '../../src/simulator/index.js';
import { readCpuSeconds } from '../lib/proc-stats.js';
import { delta, histogramWindow, scrapeMetrics, type HistogramWindow, type Scrape } from '../lib/prometheus.js';
import { sleep } from '../lib/processes.js';
import { BacklogGovernor, type BacklogBounds } from './backlog-governor.js';

export interface WindowTiming {
  warmupS: number;
  /** After the measured fleet connected, before the window opens. */
  settleS: number;
  windowS: number;
}

export interface MeasureTarget {
  /** Rows in the messages table now ("committed, counted in the store"); absent for the broker alone. */
  countRows?(): Promise<number>;
  /** The platform's /metrics, read at both ends of the window. */
  metricsUrl?: string;
  /** The server process (platform or bare broker), for its CPU use over the window. */
  serverPid?: number;
  /**
   * After the fleet stops, wait for the platform to take in everything the broker acknowledged (an external broker
   * acknowledges on receipt, so a backlog may remain) and report how long that took (needs `metricsUrl`).
   */
  drain?: boolean;
  /**
   * Hold the fleet while the platform is more than `high` messages behind the broker (needs `metricsUrl`): for an
   * external broker, which acknowledges on receipt, so the window measures what the platform takes in rather than
   * how fast the broker fills and drops its queues.
   */
  govern?: BacklogBounds;
}

/** The platform's own view of the window, from /metrics. */
export interface PlatformMetricsWindow {
  receivedPerS: number;
  storedPerS: number;
  duplicatesPerS: number;
  deadLetteredPerS: number;
  batchSize: HistogramWindow;
  commitMs: HistogramWindow;
  /** Longest wait in each batch, receipt to commit. */
  batchLatencyMs: HistogramWindow;
}

export interface FleetMeasurement {
  windowS: number;
  /** Rows added to the store per second in the window; undefined when there is no store. */
  committedPerS: number | undefined;
  /** Messages acknowledged to the fleet per second in the window. */
  ackedPerS: number;
  /** Publish-to-acknowledgement latency of the measured fleet's whole run (settle and window). */
  ackLatencyMs: LatencySummary;
  fleetErrors: number;
  errorSamples: string[];
  /** CPU of the server process in the window: 100 = one core busy. */
  serverCpuPercent: number | undefined;
  /** CPU of the bench process (the simulator) in the window. */
  simulatorCpuPercent: number;
  /** Milliseconds one row count took (it blocks the simulator while it runs). */
  countMs: number | undefined;
  metrics: PlatformMetricsWindow | undefined;
  /** With `drain`: from the fleet's stop until the platform had received every acknowledged message. */
  drain?: BacklogDrain;
  /** The newest tsmTs the measured fleet sent (a fleet measured next on the same store starts after it). */
  lastReportTs: number;
  /** Messages acknowledged by the broker and not yet received by the platform, at both ends of the window. */
  backlog?: { atStart: number; atEnd: number; peak: number };
}

export interface BacklogDrain {
  /** Messages the broker acknowledged to the fleet over the whole run (warm-up included). */
  acked: number;
  /** Messages the platform received (stored, duplicates and dead letters) once drained, or at the time-out. */
  received: number;
  seconds: number;
  /** received >= acked within the time-out: nothing the broker acknowledged was lost. */
  complete: boolean;
  /** Rows the store gained from the start of the scenario to the end of the drain (when rows are counted). */
  rowsAdded: number | undefined;
  /** Received messages not stored: identical to one already stored (a redelivery, or a device repeating itself within a second). */
  duplicates: number;
  deadLettered: number;
}

interface Snapshot {
  at: number;
  acked: number;
  rows: number | undefined;
  countMs: number | undefined;
  serverCpu: number | undefined;
  benchCpu: NodeJS.CpuUsage;
  scrape: Scrape | undefined;
}

export async function measureFleet(fleetOptions: FleetOptions, target: MeasureTarget, timing: WindowTiming): Promise<FleetMeasurement> {
  const errorSamples = new Set<string>();
  const onError = (error: Error) => {
    if (errorSamples.size < 5) errorSamples.add(error.message);
  };
  // Counted from here, so a platform that already took in an earlier scenario's fleet is judged on this one only.
  const atStart = target.metricsUrl === undefined ? undefined : await scrapeMetrics(target.metricsUrl);
  const receivedAtStart = atStart?.get('thingdesk_ingest_received_total') ?? 0;
  const rowsAtStart = target.drain ? await target.countRows?.() : undefined;
  const governed = (fleet: Awaited<ReturnType<typeof startFleet>>, ackedBefore: number) =>
    target.govern && target.metricsUrl
      ? new BacklogGovernor(fleet, target.metricsUrl, target.govern, receivedAtStart, ackedBefore).start()
      : undefined;

  let warmupAcked = 0;
  let reportsAfterTs = fleetOptions.reportsAfterTs ?? 0;
  if (timing.warmupS > 0) {
    const warmup = await startFleet({ ...fleetOptions, durationS: 0, onError });
    const governor = governed(warmup, 0);
    await sleep(timing.warmupS * 1000);
    governor?.stop();
    warmupAcked = (await warmup.stop()).messagesAcked;
    reportsAfterTs = warmup.lastReportTs();
  }

  // The same devices as the warm-up's, continuing their clocks: none repeats a message the warm-up sent.
  const fleet = await startFleet({ ...fleetOptions, reportsAfterTs, durationS: 0, onError });
  const governor = governed(fleet, warmupAcked);
  try {
    await sleep(timing.settleS * 1000);
    const snapshot = async (): Promise<Snapshot> => {
      const at = performance.now();
      const acked = fleet.progress().messagesAcked;
      const serverCpu = target.serverPid === undefined ? undefined : readCpuSeconds(target.serverPid);
      const benchCpu = process.cpuUsage();
      const rows = await target.countRows?.();
      const countMs = rows === undefined ? undefined : performance.now() - at;
      const scrape = target.metricsUrl === undefined ? undefined : await scrapeMetrics(target.metricsUrl);
      return { at, acked, rows, countMs, serverCpu, benchCpu, scrape };
    };
    const backlogAt = (snap: Snapshot) =>
      snap.scrape === undefined
        ? undefined
        : warmupAcked + snap.acked - ((snap.scrape.get('thingdesk_ingest_received_total') ?? 0) - receivedAtStart);
    const first = await snapshot();
    await sleep(timing.windowS * 1000 - (performance.now() - first.at));
    const last = await snapshot();
    governor?.stop();
    const report = await fleet.stop();
    const drain =
      target.drain && target.metricsUrl && atStart
        ? await drainBacklog(target.metricsUrl, atStart, warmupAcked + report.messagesAcked, async () =>
            rowsAtStart === undefined ? undefined : ((await target.countRows?.()) ?? rowsAtStart) - rowsAtStart,
          )
        : undefined;
    const [backlogStart, backlogEnd] = [backlogAt(first), backlogAt(last)];

    const windowS = (last.at - first.at) / 1000;
    const benchCpu = process.cpuUsage(first.benchCpu);
    return {
      windowS,
      committedPerS: first.rows === undefined || last.rows === undefined ? undefined : (last.rows - first.rows) / windowS,
      ackedPerS: (last.acked - first.acked) / windowS,
      ackLatencyMs: report.ackLatencyMs,
      fleetErrors: report.errors,
      errorSamples: [...errorSamples],
      serverCpuPercent:
        first.serverCpu === undefined || last.serverCpu === undefined ? undefined : ((last.serverCpu - first.serverCpu) / windowS) * 100,
      // process.cpuUsage(previous) is the difference since `previous`, in microseconds; the window is shorter than
      // the time to here by the last count and scrape only.
      simulatorCpuPercent: ((benchCpu.user + benchCpu.system) / 1e6 / ((performance.now() - first.at) / 1000)) * 100,
      countMs: last.countMs,
      metrics: first.scrape && last.scrape ? metricsWindow(first.scrape, last.scrape, windowS) : undefined,
      drain,
      lastReportTs: fleet.lastReportTs(),
      backlog:
        backlogStart === undefined || backlogEnd === undefined
          ? undefined
          : { atStart: backlogStart, atEnd: backlogEnd, peak: governor?.peak ?? Math.max(backlogStart, backlogEnd) },
    };
  } finally {
    governor?.stop();
    await fleet.stop();
  }
}

// The backlog is drained, or nothing more arrives for this long: what is missing then was dropped by the broker.
const drainStallS = 10;

async function drainBacklog(
  metricsUrl: string,
  atStart: Scrape,
  acked: number,
  rowsAdded: () => Promise<number | undefined>,
): Promise<BacklogDrain> {
  const started = performance.now();
  let scrape = await scrapeMetrics(metricsUrl);
  const received = () => delta(atStart, scrape, 'thingdesk_ingest_received_total');
  let seen = received();
  let grewAt = performance.now();
  while (seen < acked && performance.now() - grewAt < drainStallS * 1000) {
    await sleep(200);
    scrape = await scrapeMetrics(metricsUrl);
    if (received() > seen) grewAt = performance.now();
    seen = received();
  }
  const seconds = ((seen >= acked ? performance.now() : grewAt) - started) / 1000;
  // A batch counts as received before its commit: wait until the stored count stops moving before counting rows.
  const settled = (sample: Scrape) =>
    delta(atStart, sample, 'thingdesk_ingest_stored_total') + delta(atStart, sample, 'thingdesk_ingest_duplicates_total');
  for (let previous = -1, waited = 0; settled(scrape) !== previous && waited < 10_000; waited += 1000) {
    previous = settled(scrape);
    await sleep(1000);
    scrape = await scrapeMetrics(metricsUrl);
  }
  return {
    acked,
    received: received(),
    seconds,
    complete: received() >= acked,
    rowsAdded: await rowsAdded(),
    duplicates: delta(atStart, scrape, 'thingdesk_ingest_duplicates_total'),
    deadLettered: delta(atStart, scrape, 'thingdesk_ingest_dead_lettered_total'),
  };
}

function metricsWindow(first: Scrape, last: Scrape, windowS: number): PlatformMetricsWindow {
  const perS = (name: string) => delta(first, last, name) / windowS;
  const inMs = (window: HistogramWindow): HistogramWindow => ({
    count: window.count,
    mean: window.mean * 1000,
    p50: window.p50 * 1000,
    p99: window.p99 * 1000,
  });
  return {
    receivedPerS: perS('thingdesk_ingest_received_total'),
    storedPerS: perS('thingdesk_ingest_stored_total'),
    duplicatesPerS: perS('thingdesk_ingest_duplicates_total'),
    deadLetteredPerS: perS('thingdesk_ingest_dead_lettered_total'),
    batchSize: histogramWindow(first, last, 'thingdesk_ingest_batch_size'),
    commitMs: inMs(histogramWindow(first, last, 'thingdesk_ingest_commit_seconds')),
    batchLatencyMs: inMs(histogramWindow(first, last, 'thingdesk_ingest_latency_seconds')),
  };
}
