/**
 * One fleet scenario against one broker: a warm-up fleet, then a fresh measured fleet whose figures are taken
 * over a window that starts after it settled. The fresh fleet gives a latency sample free of the warm-up (JIT,
 * 10,000 things claimed on their first message); the warm-up used the same TUIDs, so the things already exist.
 */
import { runFleet, startFleet, type FleetOptions, type LatencySummary } from '../../src/simulator/index.js';
import { readCpuSeconds } from '../lib/proc-stats.js';
import { delta, histogramWindow, scrapeMetrics, type HistogramWindow, type Scrape } from '../lib/prometheus.js';
import { sleep } from '../lib/processes.js';

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
}

export interface BacklogDrain {
  /** Messages the broker acknowledged to the fleet over the whole run (warm-up included). */
  acked: number;
  /** Messages the platform received (stored, duplicates and dead letters) once drained, or at the time-out. */
  received: number;
  seconds: number;
  /** received >= acked within the time-out: nothing the broker acknowledged was lost. */
  complete: boolean;
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
  const warmup = await runFleet({ ...fleetOptions, durationS: timing.warmupS, onError });

  const fleet = await startFleet({ ...fleetOptions, durationS: 0, onError });
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
    const first = await snapshot();
    await sleep(timing.windowS * 1000 - (performance.now() - first.at));
    const last = await snapshot();
    const report = await fleet.stop();
    const drain = target.drain && target.metricsUrl ? await drainBacklog(target.metricsUrl, warmup.messagesAcked + report.messagesAcked) : undefined;

    const windowS = (last.at - first.at) / 1000;
    const benchCpu = process.cpuUsage(first.benchCpu);
    return {
      windowS,
      committedPerS: first.rows === undefined || last.rows === undefined ? undefined : (last.rows - first.rows) / windowS,
      ackedPerS: (last.acked - first.acked) / windowS,
      ackLatencyMs: report.ackLatencyMs,
      fleetErrors: report.errors,
      errorSamples: [...errorSamples],
      serverCpuPercent: first.serverCpu === undefined || last.serverCpu === undefined ? undefined : ((last.serverCpu - first.serverCpu) / windowS) * 100,
      // process.cpuUsage(previous) is the difference since `previous`, in microseconds; the window is shorter than
      // the time to here by the last count and scrape only.
      simulatorCpuPercent: ((benchCpu.user + benchCpu.system) / 1e6 / ((performance.now() - first.at) / 1000)) * 100,
      countMs: last.countMs,
      metrics: first.scrape && last.scrape ? metricsWindow(first.scrape, last.scrape, windowS) : undefined,
      drain,
    };
  } finally {
    await fleet.stop();
  }
}

// The backlog is drained, or nothing more arrives for this long: what is missing then was dropped by the broker.
const drainStallS = 10;

async function drainBacklog(metricsUrl: string, acked: number): Promise<BacklogDrain> {
  const started = performance.now();
  const received = async () => {
    const scrape = await scrapeMetrics(metricsUrl);
    return scrape.get('thingdesk_ingest_received_total') ?? 0;
  };
  let seen = await received();
  let grewAt = performance.now();
  while (seen < acked && performance.now() - grewAt < drainStallS * 1000) {
    await sleep(200);
    const now = await received();
    if (now > seen) grewAt = performance.now();
    seen = now;
  }
  const seconds = ((seen >= acked ? performance.now() : grewAt) - started) / 1000;
  return { acked, received: seen, seconds, complete: seen >= acked };
}

function metricsWindow(first: Scrape, last: Scrape, windowS: number): PlatformMetricsWindow {
  const perS = (name: string) => delta(first, last, name) / windowS;
  const inMs = (window: HistogramWindow): HistogramWindow => ({ count: window.count, mean: window.mean * 1000, p50: window.p50 * 1000, p99: window.p99 * 1000 });
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
