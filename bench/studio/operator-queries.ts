/**
 * SPEC section 16's reads at fleet scale (issue 38), store and domain without HTTP: BENCH_OPS_THINGS (100,000)
 * things behind BENCH_OPS_GATEWAYS (1,000) gateways and BENCH_OPS_PERIODS (1,000,000) alert periods (1 % open),
 * seeded straight into a fresh store. Times, as p99 and median of BENCH_OPS_CALLS (200) calls after a warm-up:
 * the things list sorted by last seen and filtered by one gateway (with its total), unfiltered (its first page; its
 * total apart), `GET /alerts?state=open`'s first page and a later one, and the gateways list. SQLite always; PostgreSQL when BENCH_DATABASE_URL is set (a
 * scratch schema, dropped afterwards). Budget: p99 < 50 ms each. Run by `npm run bench:studio` after the browser part.
 */
import { sql, type Insertable } from 'kysely';
import { listAlertWork } from '../../src/domain/alerts/alert-work.js';
import type { Principal } from '../../src/domain/auth/principal.js';
import { ManualClock } from '../../src/domain/clock.js';
import { listGateways } from '../../src/domain/gateways/gateway-queries.js';
import { countThings, listThings } from '../../src/domain/things/thing-queries.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import type { AlertsTable } from '../../src/store/schema.js';
import { createStore } from '../../src/store/store.js';
import { onEachBenchStore } from '../lib/bench-stores.js';

const things = Number(process.env.BENCH_OPS_THINGS ?? 100_000);
const gateways = Number(process.env.BENCH_OPS_GATEWAYS ?? 1000);
const periods = Number(process.env.BENCH_OPS_PERIODS ?? 1_000_000);
const calls = Number(process.env.BENCH_OPS_CALLS ?? 200);
const now = Date.UTC(2026, 2, 30, 12, 0, 0);
const log = (text: string) => process.stderr.write(`bench: ${text}\n`);
const tuidOf = (i: number) => `T${String(i).padStart(6, '0')}`;
const gatewayOf = (i: number) => `GW-${String(i % gateways).padStart(4, '0')}`;

async function seed(database: Database): Promise<void> {
  const { db } = database;
  await db.insertInto('organizations').values({ id: 'bench', name: 'bench', name_key: 'bench', created_at: now }).execute();
  const chunk = 500;
  for (let start = 0; start < things; start += chunk) {
    const rows = [];
    for (let i = start; i < Math.min(things, start + chunk); i++) {
      rows.push({
        tuid: tuidOf(i),
        organization_id: 'bench',
        group_id: null,
        installation_status: 'installed',
        created_at: now,
        last_ts: now / 1000,
        last_gateway_tuid: gatewayOf(i),
        battery_level: (i * 7) % 101,
        battery_ts: now / 1000,
        version: '1.0.0',
        version_ts: now / 1000,
        lat: null,
        lon: null,
        location_ts: null,
        last_heard_at: now - ((i * 7919) % 86_400_000),
        last_heard_gateway_tuid: gatewayOf(i),
      });
    }
    await db.insertInto('things').values(rows).execute();
  }
  // Periods spread over a year, one in a hundred still open (open ones never two of a type on a thing).
  const types = ['gateway connection lost', 'device connection lost', 'battery low'];
  for (let start = 0; start < periods; start += chunk) {
    const rows: Insertable<AlertsTable>[] = [];
    for (let p = start; p < Math.min(periods, start + chunk); p++) {
      const thing = p % things;
      const open = p % 100 === 0 && p < things * 3;
      const type = types[open ? Math.floor(p / things) % 3 : p % 3]!;
      const openedAt = now - ((p * 104_729) % (365 * 86_400_000));
      rows.push({
        organization_id: 'bench',
        tuid: tuidOf(thing),
        alert_type: type,
        opened_at: openedAt,
        closed_at: open ? null : openedAt + 3_600_000,
        gateway_tuid: gatewayOf(thing),
        severity: type === 'gateway connection lost' ? 'critical' : 'warning',
        group_id: null,
        incident_id: type === 'gateway connection lost' ? `gateway:${gatewayOf(thing)}:${openedAt}` : null,
      });
    }
    await db.insertInto('alerts').values(rows).execute();
  }
}

async function time(work: () => Promise<unknown>): Promise<{ p99: number; median: number }> {
  await work();
  const times: number[] = [];
  for (let call = 0; call < calls; call++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]!, median: times[Math.floor(times.length / 2)]! };
}

async function measure(name: string, url: string): Promise<void> {
  const database = await openDatabase(url);
  try {
    await migrateToLatest(database);
    const seedStart = performance.now();
    await seed(database);
    await sql`analyze`.execute(database.db);
    log(`${name}: seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
    const config = { gatewayTimeoutS: 900, deviceTimeoutS: 3600 };
    const deps = { store: createStore(database), clock: new ManualClock(now), config };
    const principal = { kind: 'client', organizationId: 'bench', clientId: 'bench', responsible: 'bench' } as Principal;
    const second = (await listAlertWork(deps, principal, { state: 'open', limit: 100 })).nextCursor ?? undefined;
    let gateway = 0;
    const rows: [string, () => Promise<unknown>][] = [
      [
        'things, one gateway, sort=last_seen:desc, with total',
        () => {
          const input = { gatewayTuid: gatewayOf((gateway += 7)), sort: 'last_seen:desc', limit: 100 };
          return Promise.all([listThings(deps, principal, input), countThings(deps, principal, input)]);
        },
      ],
      ['things, sort=last_seen:desc, first page', () => listThings(deps, principal, { sort: 'last_seen:desc', limit: 100 })],
      // GET /things answers the total of its filter on every page: unfiltered, a count of up to 100,000 things.
      ['things, total of the whole fleet', () => countThings(deps, principal, {})],
      ['alerts, state=open, first page of 100', () => listAlertWork(deps, principal, { state: 'open', limit: 100 })],
      ['alerts, state=open, second page', () => listAlertWork(deps, principal, { state: 'open', limit: 100, cursor: second })],
      ['alerts, all states, first page', () => listAlertWork(deps, principal, { limit: 100 })],
      ['gateways, first page of 100', () => listGateways(deps, principal, { limit: 100 })],
    ];
    for (const [label, work] of rows) {
      const { p99, median } = await time(work);
      console.log(
        `${name.padEnd(9)} ${label.padEnd(54)} p99 ${p99.toFixed(1).padStart(7)} ms  median ${median.toFixed(1).padStart(7)} ms  ${p99 < 50 ? 'met' : 'MISSED'}`,
      );
    }
  } finally {
    await database.close();
  }
}

console.log(
  `SPEC 16 reads: ${things.toLocaleString('en-US')} things, ${gateways.toLocaleString('en-US')} gateways, ` +
    `${periods.toLocaleString('en-US')} alert periods; p99 and median of ${calls} calls (store and domain, no HTTP); budget p99 < 50 ms`,
);
await onEachBenchStore('ops', measure);
