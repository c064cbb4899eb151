/**
 * The fleet overview and the things list's `alerting` filter at 100,000 things (issue 14): seeds one organization
 * (and a second of 10,000 things, so the organization filter has something to skip) straight into a fresh store,
 * then times the domain functions the transports call (`readFleetHealth`, `listThings`), without HTTP. Prints the
 * median of BENCH_RUNS (5) runs after one warm-up, per store: SQLite always, PostgreSQL when BENCH_DATABASE_URL is
 * set (a scratch schema, dropped afterwards). BENCH_THINGS changes the fleet size.
 *
 *   npx tsx bench/fleet/fleet-health.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/fleet/fleet-health.ts
 */
import { sql, type Insertable } from 'kysely';
import { ManualClock } from '../../src/domain/clock.js';
import type { Principal } from '../../src/domain/auth/principal.js';
import { readFleetHealth } from '../../src/domain/fleet/fleet-health.js';
import { listThings } from '../../src/domain/things/thing-queries.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import type { AlertsTable } from '../../src/store/schema.js';
import { createStore } from '../../src/store/store.js';
import { onEachBenchStore } from '../lib/bench-stores.js';

const things = Number(process.env.BENCH_THINGS ?? 100_000);
const runs = Number(process.env.BENCH_RUNS ?? 5);
const now = Date.UTC(2026, 2, 30, 12, 0, 0);
const day = 24 * 3600_000;
const statuses = [
  'installed',
  'installed',
  'installed',
  'installed',
  'installed',
  'installed',
  'installed',
  'installed',
  'new',
  'uninstalled',
];
const log = (text: string) => process.stderr.write(`bench: ${text}\n`);

const tuidOf = (org: string, i: number) => `${org.toUpperCase()}-${String(i).padStart(6, '0')}`;

/**
 * Things: 80 % installed, 20 groups and a tenth in none, a battery level spread over 0-100 (every 50th unknown).
 * Active alerts: device connection lost on every 50th, gateway connection lost behind 5 of 200 gateways, battery
 * low below 15 (about 18 % of the things alert). Closed connection periods: one in the window on every 5th thing,
 * one before it on every 5th. `sparse`: only every 1,000th thing alerts (the worst case of `alerting=true`, whose
 * page is found by walking the things in TUID order), no history.
 */
async function seed(database: Database, org: string, count: number, sparse = false): Promise<void> {
  const { db } = database;
  await db.insertInto('organizations').values({ id: org, name: org, name_key: org, created_at: now }).execute();
  await db
    .insertInto('groups')
    .values(Array.from({ length: 20 }, (_, g) => ({ organization_id: org, group_id: `g-${g}`, description: null, created_at: now })))
    .execute();
  const chunk = 1000;
  for (let start = 0; start < count; start += chunk) {
    const thingRows = [];
    const alertRows: Insertable<AlertsTable>[] = [];
    for (let i = start; i < Math.min(count, start + chunk); i++) {
      const tuid = tuidOf(org, i);
      const battery = i % 50 === 0 ? null : (i * 7) % 101;
      const gateway = `${org.toUpperCase()}-GW-${i % 200}`;
      thingRows.push({
        tuid,
        organization_id: org,
        group_id: i % 10 === 0 ? null : `g-${i % 20}`,
        installation_status: statuses[i % statuses.length]!,
        created_at: now - 60 * day,
        last_ts: now / 1000,
        last_gateway_tuid: gateway,
        battery_level: battery,
        battery_ts: battery === null ? null : now / 1000,
        version: '1.0.0',
        version_ts: now / 1000,
        lat: null,
        lon: null,
        location_ts: null,
        last_heard_at: now - 60_000,
        last_heard_gateway_tuid: gateway,
      });
      const alert = (type: string, openedAt: number, closedAt: number | null, gatewayTuid: string | null = null) =>
        alertRows.push({
          organization_id: org,
          tuid,
          alert_type: type,
          opened_at: openedAt,
          closed_at: closedAt,
          gateway_tuid: gatewayTuid,
        });
      if (sparse) {
        if (i % 1000 === 1) alert('device connection lost', now - 3600_000, null);
        continue;
      }
      if (i % 50 === 1) alert('device connection lost', now - (i % 97) * 3600_000, null);
      if (i % 200 < 5) alert('gateway connection lost', now - 3600_000, null, gateway);
      if (battery !== null && battery < 15) alert('battery low', now - (i % 13) * day, null);
      if (i % 5 === 2) alert('device connection lost', now - (i % 29) * day - day, now - (i % 29) * day - day + 5 * 3600_000);
      if (i % 5 === 3) alert('device connection lost', now - 40 * day, now - 39 * day);
    }
    await db.insertInto('things').values(thingRows).execute();
    if (alertRows.length > 0) await db.insertInto('alerts').values(alertRows).execute();
  }
}

async function median(work: () => Promise<unknown>): Promise<number> {
  await work();
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function measure(name: string, url: string): Promise<void> {
  const database = await openDatabase(url);
  try {
    await migrateToLatest(database);
    const seedStart = performance.now();
    await seed(database, 'bench', things);
    await seed(database, 'other', Math.ceil(things / 10));
    await seed(database, 'sparse', things, true);
    // Fresh statistics, as a store that has lived a while has them.
    await sql`analyze`.execute(database.db);
    log(`${name}: seeded ${things.toLocaleString('en-US')} things in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
    const deps = { store: createStore(database), clock: new ManualClock(now), timeZone: 'Europe/Helsinki', batteryLowPercent: 15 };
    const principal = { kind: 'client', organizationId: 'bench', clientId: 'bench', responsible: 'bench' } as Principal;
    const sparse = { ...principal, organizationId: 'sparse' };
    const middle = Buffer.from(`t:${tuidOf('bench', Math.floor(things / 2))}`).toString('base64url');
    const rows: [string, () => Promise<unknown>][] = [
      ['fleetHealth (defaults: 30 days, limit 50)', () => readFleetHealth(deps, principal, {})],
      ['fleetHealth (90 days, limit 1000)', () => readFleetHealth(deps, principal, { days: 90, limit: 1000 })],
      ['things, first page of 100', () => listThings(deps, principal, { limit: 100 })],
      ['things, alerting=true, first page', () => listThings(deps, principal, { limit: 100, alerting: true })],
      ['things, alerting=false, first page', () => listThings(deps, principal, { limit: 100, alerting: false })],
      ['things, alerting=true, page after the middle', () => listThings(deps, principal, { limit: 100, alerting: true, cursor: middle })],
      ['things, alerting=false, page after the middle', () => listThings(deps, principal, { limit: 100, alerting: false, cursor: middle })],
      ['things, alerting=true, group g-3, first page', () => listThings(deps, principal, { limit: 100, alerting: true, groupId: 'g-3' })],
      ['sparse: things, alerting=true, first page', () => listThings(deps, sparse, { limit: 100, alerting: true })],
      ['sparse: fleetHealth (defaults)', () => readFleetHealth(deps, sparse, {})],
    ];
    for (const [label, work] of rows)
      console.log(`${name.padEnd(10)} ${label.padEnd(48)} ${(await median(work)).toFixed(1).padStart(8)} ms`);
  } finally {
    await database.close();
  }
}

console.log(`median of ${runs} runs after one warm-up, ${things.toLocaleString('en-US')} things (store and domain, no HTTP)`);
await onEachBenchStore('fleet', measure);
