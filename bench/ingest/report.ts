/**
 * What `npm run bench:ingest` prints and saves: one table of the scenarios, the raw ceilings, the platform's own
 * view of each window (the figures that explain a miss), and a verdict per target of the issue.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrokerCeiling } from './broker-ceiling.js';
import type { BacklogDrain, FleetMeasurement } from './measure-fleet.js';
import type { StoreCeiling } from './store-ceiling.js';

export interface ScenarioResult {
  name: string;
  store: 'sqlite' | 'postgres';
  broker: 'embedded' | 'external';
  /** Messages per publish. */
  batchSize: number;
  platform: FleetMeasurement;
  platformPeakRssMiB: number;
  simulatorPeakRssMiB: number;
  /** True when the fleet's acknowledgement comes after the commit (embedded broker), so its latency is publish→commit. */
  ackAfterCommit: boolean;
  brokerCeiling: BrokerCeiling | undefined;
  storeCeiling: StoreCeiling | undefined;
  /** External broker: a steady offered rate, `share` of the committed rate measured above. */
  sustained?: { offeredPerS: number; share: number; measurement: FleetMeasurement };
}

export interface IngestReport {
  startedAt: string;
  /** loadAverage: 1-minute load at the start and the end; other work on the machine distorts every figure. */
  machine: { cpus: number; node: string; platformEntry: string; loadAverage: { start: number; end: number } };
  fleet: {
    gateways: number;
    devices: number;
    maxInFlight: number;
    qos: number;
    protocolVersion: 4 | 5;
    warmupS: number;
    settleS: number;
    windowS: number;
    platformEnv: Record<string, string>;
  };
  /** Which external broker the PostgreSQL variant ran on. */
  externalBroker?: string;
  scenarios: ScenarioResult[];
  storeCeilings: StoreCeiling[];
  skipped: string[];
  verdicts: { target: string; met: boolean | undefined; detail: string }[];
}

const targets = { arraysPerS: 30_000, singlePerS: 15_000, storeRatio: 0.7, rssMiB: 400 };
// Issue 13: PostgreSQL + an external broker, one instance.
const externalTargets = { arraysPerS: 20_000, singlePerS: 8_000, storeRatio: 0.6 };

const int = (value: number | undefined) => (value === undefined ? 'n/a' : Math.round(value).toLocaleString('en-US'));
const fixed = (value: number | undefined, digits = 1) => (value === undefined ? 'n/a' : value.toFixed(digits));
const ratio = (value: number | undefined, ceiling: number | undefined) => (value === undefined || !ceiling ? undefined : value / ceiling);
const percent = (value: number | undefined) => (value === undefined ? 'n/a' : `${Math.round(value * 100)} %`);

export function ratios(scenario: ScenarioResult): { broker: number | undefined; store: number | undefined } {
  return {
    broker: ratio(scenario.platform.committedPerS, scenario.brokerCeiling?.ackedPerS),
    store: ratio(scenario.platform.committedPerS, scenario.storeCeiling?.rowsPerS),
  };
}

export function judge(scenarios: readonly ScenarioResult[]): IngestReport['verdicts'] {
  const sqlite = scenarios.filter((s) => s.store === 'sqlite');
  const arrays = sqlite.find((s) => s.batchSize === 10);
  const single = sqlite.find((s) => s.batchSize === 1);
  const verdict = (target: string, value: number | undefined, met: (v: number) => boolean, detail: string) => ({
    target,
    met: value === undefined ? undefined : met(value),
    detail,
  });
  const storeRatio = arrays ? ratios(arrays).store : undefined;
  const peakRss = sqlite.length > 0 ? Math.max(...sqlite.map((s) => s.platformPeakRssMiB)) : undefined;
  const external = scenarios.filter((s) => s.store === 'postgres');
  const externalArrays = external.find((s) => s.batchSize === 10);
  const externalSingle = external.find((s) => s.batchSize === 1);
  const externalRatio = externalArrays ? ratios(externalArrays).store : undefined;
  const externalRss = external.length > 0 ? Math.max(...external.map((s) => s.platformPeakRssMiB)) : undefined;
  const steady = external.filter((s) => s.sustained);
  const steadyLosses = steady.length === 0 ? undefined : Math.max(...steady.map((s) => unaccounted(s.sustained!.measurement.drain)));
  const steadyKeepsUp = steady.length === 0 ? undefined : Math.min(...steady.map((s) => keptUp(s.sustained!.measurement)));
  return [
    verdict(
      'PostgreSQL + broker, arrays of 10: >= 20,000 msgs committed/s',
      externalArrays?.platform.committedPerS,
      (v) => v >= externalTargets.arraysPerS,
      `${int(externalArrays?.platform.committedPerS)}/s`,
    ),
    verdict(
      'PostgreSQL + broker, single messages: >= 8,000 msgs committed/s',
      externalSingle?.platform.committedPerS,
      (v) => v >= externalTargets.singlePerS,
      `${int(externalSingle?.platform.committedPerS)}/s`,
    ),
    verdict(
      'PostgreSQL + broker, arrays of 10: >= 60 % of the PostgreSQL store-alone ceiling',
      externalRatio,
      (v) => v >= externalTargets.storeRatio,
      percent(externalRatio),
    ),
    verdict(
      'PostgreSQL + broker, at 80 % of the maximum: committed keeps up with acknowledged (window)',
      steadyKeepsUp,
      (v) => v >= 0.97,
      percent(steadyKeepsUp),
    ),
    verdict(
      'PostgreSQL + broker, at 80 % of the maximum: after the stop, every acknowledged message stored or a duplicate, 0 lost',
      steadyLosses,
      (v) => v <= 0,
      `${int(steadyLosses)} unaccounted`,
    ),
    verdict('PostgreSQL + broker: platform peak RSS < 400 MB', externalRss, (v) => v < targets.rssMiB, `${fixed(externalRss)} MB`),
    verdict(
      'SQLite, arrays of 10: >= 30,000 msgs committed/s',
      arrays?.platform.committedPerS,
      (v) => v >= targets.arraysPerS,
      `${int(arrays?.platform.committedPerS)}/s`,
    ),
    verdict(
      'SQLite, single messages: >= 15,000 msgs committed/s',
      single?.platform.committedPerS,
      (v) => v >= targets.singlePerS,
      `${int(single?.platform.committedPerS)}/s`,
    ),
    verdict('SQLite, arrays of 10: >= 70 % of the store-alone ceiling', storeRatio, (v) => v >= targets.storeRatio, percent(storeRatio)),
    verdict('SQLite: platform peak RSS < 400 MB', peakRss, (v) => v < targets.rssMiB, `${fixed(peakRss)} MB`),
  ];
}

/** Acknowledged messages neither stored nor skipped as duplicates nor dead-lettered, once drained (lost). */
function unaccounted(drain: BacklogDrain | undefined): number {
  if (!drain || drain.rowsAdded === undefined) return Number.POSITIVE_INFINITY;
  return drain.acked - (drain.rowsAdded + drain.duplicates + drain.deadLettered);
}

/** Received by the platform / acknowledged by the broker in the window: below 1, a backlog grows. */
function keptUp(measurement: FleetMeasurement): number {
  const received = measurement.metrics?.receivedPerS;
  return received === undefined || measurement.ackedPerS === 0 ? 0 : received / measurement.ackedPerS;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_cell, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(' | ');
  return [line(rows[0]!), widths.map((width) => '-'.repeat(width)).join('-|-'), ...rows.slice(1).map(line)].join('\n');
}

function describeDrain(p: FleetMeasurement): string {
  const drain = p.drain!;
  const ackedRatio = p.committedPerS === undefined ? 'n/a' : percent(p.committedPerS / p.ackedPerS);
  const lost = unaccounted(drain);
  const peak = p.backlog ? `backlog peak ${int(p.backlog.peak)}; ` : '';
  return (
    `committed / broker-acknowledged in the window: ${ackedRatio}; ${peak}after the fleet stopped the platform took the backlog in for ${fixed(drain.seconds)} s: ` +
    `${int(drain.received)} received of ${int(drain.acked)} acknowledged; ${int(drain.rowsAdded)} stored + ${int(drain.duplicates)} identical (skipped) + ${int(drain.deadLettered)} dead letters: ` +
    (lost <= 0 ? 'nothing lost' : `${int(lost)} lost (dropped by the broker's queue limits? see docs/mqtt.md)`)
  );
}

export function formatReport(report: IngestReport): string {
  const out: string[] = [];
  const { fleet } = report;
  out.push(
    '',
    `== ingest benchmark (${report.machine.cpus} CPUs, Node ${report.machine.node}, platform ${report.machine.platformEntry})`,
    `fleet: ${fleet.devices.toLocaleString('en-US')} devices behind ${fleet.gateways} gateways, MQTT ${fleet.protocolVersion === 5 ? '5' : '3.1.1'}, QoS ${fleet.qos}, ` +
      `${fleet.maxInFlight} publishes in flight per gateway, as fast as acknowledgements allow; ` +
      `warm-up ${fleet.warmupS} s, then a fresh fleet, ${fleet.settleS} s settle, ${fleet.windowS} s window`,
    // Only the load at the start tells about other work: by the end the bench's own processes are in it.
    ...(report.machine.loadAverage.start > report.machine.cpus * 0.5
      ? [
          `WARNING: the machine was busy before the run (1-minute load ${report.machine.loadAverage.start.toFixed(1)}): other work distorts these figures`,
        ]
      : []),
    ...(report.externalBroker ? [`external broker: ${report.externalBroker}`] : []),
    ...(Object.keys(fleet.platformEnv).length > 0 ? [`platform environment overrides: ${JSON.stringify(fleet.platformEnv)}`] : []),
    '',
  );
  const header = [
    'scenario',
    'msgs committed/s',
    'p99 publish→commit ms',
    'platform peak RSS MB',
    'ratio to broker-alone',
    'ratio to store-alone',
  ];
  out.push(
    table([
      header,
      ...report.scenarios.map((s) => {
        const r = ratios(s);
        const p99 = s.ackAfterCommit ? fixed(s.platform.ackLatencyMs.p99) : `n/a (broker acks: ${fixed(s.platform.ackLatencyMs.p99)})`;
        return [s.name, int(s.platform.committedPerS), p99, fixed(s.platformPeakRssMiB), percent(r.broker), percent(r.store)];
      }),
    ]),
    '',
    'ceilings:',
  );
  for (const s of report.scenarios) {
    const c = s.brokerCeiling;
    if (c)
      out.push(
        `  broker alone, ${s.name}: ${int(c.ackedPerS)} msgs acked/s, p99 ack ${fixed(c.ackLatencyMs.p99)} ms, broker-side CPU ${fixed(c.serverCpuPercent, 0)} %, simulator CPU ${fixed(c.simulatorCpuPercent, 0)} %`,
      );
  }
  for (const c of report.storeCeilings) {
    out.push(
      `  store alone (${c.store === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${int(c.transactionSize)}-record transactions): ${int(c.rowsPerS)} rows/s ` +
        `(${int(c.recordsPerS)} records/s incl. ${int(c.duplicates)} duplicates; ${int(c.rows)} rows, ${fixed(c.commitMsMean)} ms per transaction; parseUplink ${fixed(c.parseMicrosPerMessage)} µs/msg)`,
    );
  }
  out.push('', 'inside each window (platform /metrics and /proc):');
  for (const s of report.scenarios) {
    const p = s.platform;
    const m = p.metrics;
    out.push(
      `  ${s.name}: acked ${int(p.ackedPerS)}/s, platform CPU ${fixed(p.serverCpuPercent, 0)} %, simulator CPU ${fixed(p.simulatorCpuPercent, 0)} % ` +
        `(RSS ${fixed(s.simulatorPeakRssMiB)} MB), p50 ack ${fixed(p.ackLatencyMs.p50)} ms, fleet errors ${p.fleetErrors}` +
        (p.countMs === undefined ? '' : `, row count took ${fixed(p.countMs, 0)} ms`),
    );
    if (p.drain) out.push(`      ${describeDrain(p)}`);
    if (s.sustained) {
      const steady = s.sustained.measurement;
      out.push(
        `      sustained at ${percent(s.sustained.share)} of that (${int(s.sustained.offeredPerS)} msgs/s offered): acked ${int(steady.ackedPerS)}/s, received ${int(steady.metrics?.receivedPerS)}/s ` +
          `(${percent(keptUp(steady))}), committed ${int(steady.committedPerS)}/s, platform CPU ${fixed(steady.serverCpuPercent, 0)} %, ` +
          `backlog ${int(steady.backlog?.atStart)} → ${int(steady.backlog?.atEnd)} over the window`,
        `      ${describeDrain(steady)}`,
      );
    }
    if (m) {
      out.push(
        `      /metrics: received ${int(m.receivedPerS)}/s, stored ${int(m.storedPerS)}/s, duplicates ${int(m.duplicatesPerS)}/s, dead letters ${int(m.deadLetteredPerS)}/s; ` +
          `batch size mean ${fixed(m.batchSize.mean)} p99≈${fixed(m.batchSize.p99, 0)} (${int(m.batchSize.count)} batches); ` +
          `commit ms mean ${fixed(m.commitMs.mean, 2)} p99≈${fixed(m.commitMs.p99, 1)}; batch receipt→commit p99≈${fixed(m.batchLatencyMs.p99, 1)} ms`,
      );
    }
    for (const sample of p.errorSamples) out.push(`      fleet error: ${sample}`);
  }
  for (const reason of report.skipped) out.push(`skipped: ${reason}`);
  out.push('', 'targets (issues, on the 2-core machine):');
  for (const v of report.verdicts)
    out.push(`  ${v.met === undefined ? 'not measured' : v.met ? 'met    ' : 'NOT met'}  ${v.target}: ${v.detail}`);
  out.push(
    '',
    'note: figures on this machine vary by about 20 % from run to run; compare the ratios, which move much less.',
    'note: "committed" counts rows added to the messages table in the window; identical messages a device repeats within one second (same key and bytes) are stored once, so it can be below "acked".',
  );
  return out.join('\n');
}

/** Writes the report as JSON to bench/results/ingest-<timestamp>.json (git-ignored); returns the path. */
export function saveReport(report: IngestReport, resultsDir: string): string {
  mkdirSync(resultsDir, { recursive: true });
  const path = join(resultsDir, `ingest-${report.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}
