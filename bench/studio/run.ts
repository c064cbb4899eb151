/**
 * The studio's weight and speed (issue 14; a benchmark, not a timed test): `npm run bench:studio`.
 *
 * 1. Weight: gzipped JavaScript the shell loads at once, and what the first view (the fleet overview of a signed-in
 *    Manager) loads in all, read from the browser's resource timing. Budget: <= 250 KB.
 * 2. Things list with BENCH_STUDIO_THINGS (100,000) things: time from navigation to the first page's rows, then ten
 *    pages forward with every long task (> 50 ms on the main thread) recorded. Budget: first page < 1 s, no long task
 *    over 100 ms.
 * 3. The month chart: a thing with a month of one message a minute (43,200), the thing page's chart over the last
 *    30 days, from the range's click to the drawn chart. Budget: < 1 s.
 * Each figure is the median of BENCH_STUDIO_RUNS (3) runs, printed with the others; the machine is shared, so read
 * them as orders of magnitude against the budgets.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { openDatabase } from '../../src/store/database.js';
import { ensureStudioBuilt, launchBrowser } from '../../test/helpers/browser.js';
import { repoRoot } from '../lib/node-entry.js';
import { monthTuid, seedStudioStore } from './seed.js';
import { signIn } from './sign-in.js';
import { measureStudioWeight } from './weight.js';

const things = Number(process.env.BENCH_STUDIO_THINGS ?? 100_000);
const runs = Number(process.env.BENCH_STUDIO_RUNS ?? 3);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => `${Math.round(value)} ms`;
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

/** Long tasks of the page since it loaded (the observer is installed before any script of the page runs). */
const longTaskObserver = `
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__longTasks.push(entry.duration); })
    .observe({ type: 'longtask', buffered: true });
`;

async function main(): Promise<void> {
  await ensureStudioBuilt();
  const weight = measureStudioWeight(join(repoRoot, 'dist/studio'));
  const directory = mkdtempSync(join(tmpdir(), 'thingdesk-bench-studio-'));
  const databaseUrl = `file:${join(directory, 'studio.db')}`;
  console.log(`seeding ${things.toLocaleString('en-US')} things and a month of minutes for ${monthTuid} ...`);
  const seedStarted = performance.now();
  const database = await openDatabase(databaseUrl);
  await seedStudioStore(database, { things, monthMessages: 30 * 24 * 60 });
  await database.close();
  console.log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`);

  const config = loadConfig({ DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'silent' });
  const app = await startApp({ config, logger: createLogger('silent'), print: () => undefined });
  const browser = await launchBrowser();
  const firstView: number[] = [];
  const firstPage: number[] = [];
  const longest: number[] = [];
  const chart: number[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const context = await browser.newContext({ baseURL: `http://127.0.0.1:${app.httpPort}`, viewport: { width: 1280, height: 900 } });
      await context.addInitScript(longTaskObserver);
      const page = await context.newPage();
      await signIn(page);
      await page.goto('/studio/');
      await page.waitForLoadState('networkidle');
      const loaded = (await page.evaluate(`performance.getEntriesByType('resource').map((entry) => entry.name)`)) as string[];
      const names = new Set(loaded.map((url) => new URL(url).pathname.replace('/studio/assets/', '')));
      firstView.push(
        weight.files.filter((file) => file.file.endsWith('.js') && names.has(file.file)).reduce((sum, file) => sum + file.gzip, 0),
      );

      await page.goto('/studio/things');
      const rows = page.locator('table tbody tr');
      await rows.first().waitFor();
      firstPage.push((await page.evaluate('performance.now()')) as number);
      for (let step = 0; step < 10; step++) {
        const before = await rows.first().textContent();
        await page.getByRole('button', { name: /next/i }).click();
        // Polled from here: the page's CSP refuses the string evaluation a polling waitForFunction needs.
        while ((await rows.first().textContent()) === before) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      longest.push(Math.max(0, ...((await page.evaluate('window.__longTasks')) as number[])));

      await page.goto(`/studio/things/${monthTuid}`);
      const range = page.getByRole('button', { name: /month|30 days/i }).first();
      await range.waitFor();
      const started = (await page.evaluate('performance.now()')) as number;
      await range.click();
      await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
      await page.locator('.uplot canvas').first().waitFor();
      chart.push(((await page.evaluate('performance.now()')) as number) - started);
      await context.close();
    }
  } finally {
    await browser.close();
    await app.stop();
  }

  console.log('\nthingdesk studio: weight and speed (medians of %d runs)', runs);
  console.log(`  initial JS, shell (gzip)          ${kb(weight.initialJsGzip)}   CSS ${kb(weight.initialCssGzip)}`);
  console.log(`  initial JS, first view (gzip)     ${kb(median(firstView))}   budget 250 KB: ${verdict(median(firstView) <= 250 * 1024)}`);
  console.log(
    `  things list, first page (${things.toLocaleString('en-US')})  ${ms(median(firstPage))}   budget 1 s: ${verdict(median(firstPage) < 1000)}   runs ${firstPage.map(ms).join(', ')}`,
  );
  console.log(
    `  longest task, 10 pages forward    ${ms(median(longest))}   budget 100 ms: ${verdict(median(longest) <= 100)}   runs ${longest.map(ms).join(', ')}`,
  );
  console.log(
    `  month chart (43,200 messages)     ${ms(median(chart))}   budget 1 s: ${verdict(median(chart) < 1000)}   runs ${chart.map(ms).join(', ')}`,
  );
  console.log(
    '  largest chunks (gzip): ' +
      weight.files
        .slice(0, 6)
        .map((file) => `${file.file} ${kb(file.gzip)}${file.initial ? ' (initial)' : ''}`)
        .join(', '),
  );
}

await main();
