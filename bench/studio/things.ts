/**
 * `npx tsx bench/studio/things.ts` (issue 14): the studio's things list with 100,000 things and the thing page's
 * month chart, in headless Chromium against the platform on a seeded SQLite store (100,000 things behind 100
 * gateways, one message each, written through the platform's batch writer; cached in bench/results/ as the read
 * benchmarks' seeds are). The platform runs in this process (its event loop is idle while the browser waits).
 *
 * Prints, as medians of BENCH_RUNS (default 3) runs:
 * - first page: from opening /studio/things (signed in, the page's code cached) to its 50 rows shown;
 * - the same with filters (TUID contains "9", not alerting);
 * - next page: from the Next click to the next 50 rows shown, and the longest main-thread task meanwhile;
 * - month chart: a thing with a reading every hour for 30 days; from choosing "Last 30 days" to the chart drawn
 *   (the page's own figure: the series read, uPlot loaded and drawn).
 * Figures only; nothing is asserted (the machine is shared: ratios and medians, not absolutes, are the point).
 */
import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { startApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { ensureStudioBuilt, launchBrowser, signInThroughForm } from '../../test/helpers/browser.js';
import { prepareSeededSqlite, seedCredentials, seededTuids, type SeedShape } from '../lib/seed-store.js';

const shape: SeedShape = { gateways: 100, things: 100_000, messagesPerThing: 1, transactionSize: 10_000 };
const runs = Number(process.env.BENCH_RUNS ?? 3);
const log = (text: string) => console.log(`[bench:studio] ${text}`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Rows the list shows now (first column), read from outside the page (its CSP refuses evaluated strings). */
const firstTuid = (page: Page) => page.locator('table tbody tr td:first-child a').first().textContent();

async function waitForFirstRow(page: Page, notBe: string | null): Promise<void> {
  for (;;) {
    const count = await page.locator('table tbody tr td:first-child a').count();
    if (count === 50 && (await firstTuid(page)) !== notBe) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const seeded = await prepareSeededSqlite(shape, log);
log(seeded.note);
await ensureStudioBuilt();
const config = loadConfig({ DATABASE_URL: `file:${seeded.path}`, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'silent' });
const app = await startApp({ config, logger: createLogger('silent'), print: () => undefined });
const base = `http://127.0.0.1:${app.httpPort}`;

// A month of hourly readings for one thing, through the ingest pipeline as a gateway's uplinks would go.
const chartTuid = seededTuids(shape)[0]!;
const nowS = Math.floor(Date.now() / 1000);
const readings = Array.from({ length: 30 * 24 }, (_, index) => ({
  tsmId: 12100,
  tsmEv: 10,
  tsmTs: nowS - 600 - index * 3600,
  tsmTuid: chartTuid,
  temp: 20 + Math.sin(index / 12) * 4,
}));
for (let start = 0; start < readings.length; start += 500) {
  await app.ingest.ingest(JSON.stringify(readings.slice(start, start + 500)), {
    organizationId: seedCredentials.organizationId,
    gatewayTuid: 'BENCH-CHART-GW',
    source: 'bench',
    client: 'bench',
    receivedAt: Date.now(),
  });
}

const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: base });
  // Long tasks of the main thread, recorded from the start of every document (an init script is not subject to CSP).
  await context.addInitScript(`
    window.__longTasks = [];
    new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__longTasks.push(entry.duration); })
      .observe({ type: 'longtask', buffered: true });
  `);
  const page = await context.newPage();
  await page.goto('/studio/sign-in');
  await signInThroughForm(page, {
    email: seedCredentials.email,
    organizationName: seedCredentials.organizationName,
    password: seedCredentials.password,
  });
  // Warm: the list's code in the browser cache and the server's compiled query, as for a user coming back.
  await page.goto('/studio/things');
  await waitForFirstRow(page, null);

  const first: number[] = [];
  const next: number[] = [];
  const longest: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await page.goto('/studio/things');
    await waitForFirstRow(page, null);
    first.push(performance.now() - started);

    await page.evaluate('window.__longTasks = []');
    const before = await firstTuid(page);
    const clicked = performance.now();
    await page.getByRole('button', { name: 'Next page' }).click();
    await waitForFirstRow(page, before);
    next.push(performance.now() - clicked);
    const tasks = (await page.evaluate('window.__longTasks')) as number[];
    longest.push(tasks.length === 0 ? 0 : Math.max(...tasks));
  }

  // Filters read through the same cursor pages: a TUID search and the alerting filter (both match most things).
  const filtered: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await page.goto('/studio/things?q=9&alerting=false');
    await waitForFirstRow(page, null);
    filtered.push(performance.now() - started);
  }

  const chart: number[] = [];
  for (let run = 0; run < runs; run++) {
    await page.goto(`/studio/things/${chartTuid}`);
    const figure = page.locator('figure[data-field="temp"]');
    await page.locator('figure[data-field="temp"][data-render-ms]').waitFor();
    await page.getByLabel('Range').selectOption('month');
    await page.locator('figure[data-field="temp"][data-points="720"][data-render-ms]').waitFor();
    chart.push(Number(await figure.getAttribute('data-render-ms')));
  }

  log(`things in the store: ${(await app.store.things.count(seedCredentials.organizationId)).toLocaleString('en-US')}`);
  log(
    `first page of the list (50 of 100,000 things): median ${median(first).toFixed(0)} ms (runs: ${first.map((v) => v.toFixed(0)).join(', ')})`,
  );
  log(
    `first page filtered (q=9, alerting=false): median ${median(filtered).toFixed(0)} ms (runs: ${filtered.map((v) => v.toFixed(0)).join(', ')})`,
  );
  log(`next page: median ${median(next).toFixed(0)} ms (runs: ${next.map((v) => v.toFixed(0)).join(', ')})`);
  log(
    `longest main-thread task while paging: median ${median(longest).toFixed(0)} ms (runs: ${longest.map((v) => v.toFixed(0)).join(', ')})`,
  );
  log(`month chart (720 hourly readings): median ${median(chart).toFixed(0)} ms (runs: ${chart.join(', ')})`);
} finally {
  await browser.close();
  await app.stop();
  rmSync(seeded.workDir, { recursive: true, force: true });
}
