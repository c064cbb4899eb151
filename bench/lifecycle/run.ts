/**
 * `npm run bench:lifecycle` (issue 16): each part of the data-lifecycle benchmark in turn, printing its table.
 * Parts: series and the ingest cost of rollups (series.ts).
 */
import { killAll } from '../lib/processes.js';
import { formatSeriesReport, runSeriesBench } from './series.js';

try {
  process.stdout.write(`${formatSeriesReport(await runSeriesBench())}\n`);
} finally {
  await killAll();
}
