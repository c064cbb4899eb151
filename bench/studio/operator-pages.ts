/**
 * Issue 38's browser bars at fleet scale: the alerts page and a gateway page interactive in < 1 s, with the fleet of
 * operator-seed.ts (100,000 things, 1,000 gateways, 1,000,000 alert periods) on SQLite, and on a scratch schema of
 * BENCH_DATABASE_URL's PostgreSQL when it is set. "Interactive": from the
 * navigation's start to the first row of the page's table, in the page's own clock. The platform runs on a clock
 * held at the seed's time, with silence timeouts of two days, so its alert engine opens nothing at start (every
 * thing was heard within the day) and the open periods are those the engine leaves open. Medians of
 * BENCH_STUDIO_RUNS (3), each in a fresh browser context (nothing cached). Run by `npm run bench:studio`.
 */
import { sql } from 'kysely';
import type { Page } from 'playwright-core';
import { startApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/config.js';
import { ManualClock, systemClock } from '../../src/domain/clock.js';
import { createUser } from '../../src/domain/identity/identity-service.js';
import { createLogger } from '../../src/observability/logger.js';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { ensureStudioBuilt, launchBrowser } from '../../test/helpers/browser.js';
import { onEachBenchStore } from '../lib/bench-stores.js';
import { benchSigningKeySealingKey } from '../lib/http-platform.js';
import { seedCredentials } from '../lib/seed-store.js';
import { gatewayOf, gateways, now, periods, seedOperatorFleet, things } from './operator-seed.js';
import { signIn } from './sign-in.js';

const runs = Number(process.env.BENCH_STUDIO_RUNS ?? 3);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const ms = (value: number) => `${Math.round(value)} ms`;

/** Milliseconds from the navigation's start to the first row of the page's table. */
async function untilFirstRow(page: Page, path: string): Promise<number> {
  await page.goto(path);
  await page.locator('table tbody tr').first().waitFor();
  return (await page.evaluate('performance.now()')) as number;
}

async function measure(storeName: string, databaseUrl: string): Promise<void> {
  const seedStarted = performance.now();
  const database = await openDatabase(databaseUrl);
  try {
    await migrateToLatest(database);
    await seedOperatorFleet(database);
    await createUser(
      { store: createStore(database), clock: systemClock },
      { organizationId: seedCredentials.organizationId, email: seedCredentials.email, password: seedCredentials.password, role: 'Manager' },
    );
    await sql`analyze`.execute(database.db);
  } finally {
    await database.close();
  }
  console.log(
    `${storeName}: seeded ${things} things, ${gateways} gateways, ${periods} periods in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`,
  );

  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    MQTT_PORT: '0',
    LOG_LEVEL: 'silent',
    GATEWAY_TIMEOUT_S: '172800',
    DEVICE_TIMEOUT_S: '172800',
    ...(storeName === 'postgres' && { SIGNING_KEY_SEALING_KEY: benchSigningKeySealingKey }),
  });
  const app = await startApp({ config, clock: new ManualClock(now), logger: createLogger('silent'), print: () => undefined });
  const browser = await launchBrowser();
  const alertsPage: number[] = [];
  const gatewayPage: number[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const context = await browser.newContext({ baseURL: `http://127.0.0.1:${app.httpPort}`, viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      await signIn(page);
      alertsPage.push(await untilFirstRow(page, '/studio/alerts'));
      gatewayPage.push(await untilFirstRow(page, `/studio/gateways/${gatewayOf(run * 17 + 1)}`));
      await context.close();
    }
  } finally {
    await browser.close();
    await app.stop();
  }
  // The clock stood still, so what is open now was open while the pages were read.
  const after = await openDatabase(databaseUrl);
  const open = await sql<{ n: number }>`select count(*) as n from alerts where closed_at is null`.execute(after.db);
  await after.close();
  console.log(
    `\nSPEC 16 pages at fleet scale on ${storeName} (${Number(open.rows[0]!.n).toLocaleString('en-US')} periods open), medians of ${runs} runs`,
  );
  const line = (label: string, values: number[]) =>
    console.log(
      `  ${label.padEnd(40)} ${ms(median(values)).padStart(8)}   budget 1 s: ${median(values) < 1000 ? 'met' : 'MISSED'}   runs ${values.map(ms).join(', ')}`,
    );
  line('alerts page, first row', alertsPage);
  line(`gateway page (${Math.round(things / gateways)} things), first row`, gatewayPage);
}

await ensureStudioBuilt();
await onEachBenchStore('operator_pages', measure);
