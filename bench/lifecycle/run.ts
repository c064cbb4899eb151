/**
 * `npm run bench:lifecycle` (issue 16): each part of the data-lifecycle benchmark in turn, printing its table.
 * Parts: series and the ingest cost of rollups (series.ts).
 */
import { join } from 'node:path';
import { saveJsonReport } from '../lib/http-report.js';
import { repoRoot } from '../lib/node-entry.js';
import { killAll } from '../lib/processes.js';
import { formatSeriesReport, runSeriesBench } from './series.js';

const startedAt = new Date().toISOString();
try {
  const series = await runSeriesBench();
  const saved = saveJsonReport(join(repoRoot, 'bench/results'), 'lifecycle', startedAt, { startedAt, series });
  process.stdout.write(`${formatSeriesReport(series)}\n(saved ${saved})\n`);
} finally {
  await killAll();
}
