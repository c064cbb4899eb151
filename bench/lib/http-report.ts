/**
 * What the read benchmarks (bench:rest, bench:graphql) print and save: a table per benchmark, the figures behind
 * it, the machine's load, and a verdict per target. Shared so both read the same way.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { errorCount, type LoadResult } from './http-load.js';

/** The 1-minute load average above which another benchmark (or build) is probably running. */
export const busyLoad = 1.5;

export interface MachineInfo {
  cpus: number;
  node: string;
  platformEntry: string;
  /** 1-minute load average when the run started and when it ended (the end includes the run's own processes). */
  loadAverage: { start: number; end?: number };
}

export function machineInfo(platformEntry: string): MachineInfo {
  return { cpus: cpus().length, node: process.versions.node, platformEntry, loadAverage: { start: loadavg()[0]! } };
}

export function endMachineInfo(machine: MachineInfo): void {
  machine.loadAverage.end = loadavg()[0]!;
}

export const int = (value: number | undefined) => (value === undefined ? 'n/a' : Math.round(value).toLocaleString('en-US'));
export const fixed = (value: number | undefined, digits = 1) =>
  value === undefined || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);
export const percent = (value: number | undefined) =>
  value === undefined || !Number.isFinite(value) ? 'n/a' : `${Math.round(value * 100)} %`;

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_cell, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(' | ');
  return [line(rows[0]!), widths.map((width) => '-'.repeat(width)).join('-|-'), ...rows.slice(1).map(line)].join('\n');
}

export interface Verdict {
  target: string;
  /** undefined: not measured, or the window had errors (invalid). */
  met: boolean | undefined;
  detail: string;
}

export function verdictWord(verdict: Verdict | undefined): string {
  if (!verdict) return '';
  return verdict.met === undefined ? 'invalid/not measured' : verdict.met ? 'met' : 'NOT met';
}

/** A window's errors as a short text ("none" when clean). */
export function describeErrors(result: LoadResult): string {
  if (errorCount(result) === 0) return 'none';
  const codes = Object.entries(result.errors.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, count]) => `${count}×${code}`)
    .join(' ');
  return `non-2xx ${result.errors.non2xx}${codes ? ` (${codes})` : ''}, connection errors ${result.errors.connection} (timeouts ${result.errors.timeouts}), bad bodies ${result.errors.mismatches}`;
}

/** The lines about the machine's load and noise that every read report ends with. */
export function noiseNotes(machine: MachineInfo): string[] {
  const { start, end } = machine.loadAverage;
  return [
    `load average (1 min): ${start.toFixed(2)} at start, ${end === undefined ? 'n/a' : end.toFixed(2)} at end (the end includes this run's own load)`,
    ...(start > busyLoad
      ? [
          `WARNING: the load was above ${busyLoad} when the run started: another benchmark or build was probably running, and every figure here is distorted by it`,
        ]
      : []),
    'note: throughput on this machine varies by about ±20 % from run to run; compare the ratios (measured in the same run), which move much less.',
    'note: the load generator (autocannon) runs in the bench process on the same 2 cores as the server, as the STACK.md ceilings were measured.',
    'note: "server CPU µs/req" (server CPU time / requests in the window) is the cost of one request; other work on the machine changes it much less than req/s.',
  ];
}

/** Writes the report as JSON to bench/results/<prefix>-<timestamp>.json (git-ignored); returns the path. */
export function saveJsonReport(resultsDir: string, prefix: string, startedAt: string, report: unknown): string {
  mkdirSync(resultsDir, { recursive: true });
  const path = join(resultsDir, `${prefix}-${startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}
