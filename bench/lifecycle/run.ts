/**
 * `npm run bench:lifecycle` (issue 16): each part of the data-lifecycle benchmark in turn, printing its table.
 * Parts (BENCH_PARTS, comma-separated; all by default): `series` (series latency and the ingest cost of rollups,
 * series.ts), `export` (a million messages as CSV: rows/s and RSS growth, export.ts), `sweep` (a retention sweep
 * while a fleet publishes at 2,000 msg/s, retention-sweep.ts). SQLite always; PostgreSQL with BENCH_DATABASE_URL.
 */
import { join } from 'node:path';
import { saveJsonReport } from '../lib/http-report.js';
import { repoRoot } from '../lib/node-entry.js';
import { killAll } from '../lib/processes.js';
import { formatExportResults, runExportBench } from './export.js';
import { formatSweepResult, runRetentionSweepBench } from './retention-sweep.js';
import { formatSeriesReport, runSeriesBench } from './series.js';

const startedAt = new Date().toISOString();
const parts = new Set((process.env.BENCH_PARTS ?? 'series,export,sweep').split(',').map((part) => part.trim()));
const log = (text: string) => process.stderr.write(`bench: ${text}\n`);
try {
  const report: Record<string, unknown> = { startedAt };
  if (parts.has('series')) {
    const series = await runSeriesBench();
    report.series = series;
    process.stdout.write(`${formatSeriesReport(series)}\n`);
  }
  if (parts.has('export')) {
    const exported = await runExportBench({ log });
    report.export = exported;
    process.stdout.write(`${formatExportResults(exported)}\n`);
  }
  if (parts.has('sweep')) {
    const sweeps = await runRetentionSweepBench(log);
    report.sweep = sweeps;
    process.stdout.write(`${sweeps.map(formatSweepResult).join('\n')}\n`);
  }
  const saved = saveJsonReport(join(repoRoot, 'bench/results'), 'lifecycle', startedAt, report);
  process.stdout.write(`(saved ${saved})\n`);
} finally {
  await killAll();
}
