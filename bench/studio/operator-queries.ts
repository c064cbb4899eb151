/**
 * SPEC section 16's reads at fleet scale (issue 38), store and domain without HTTP: BENCH_OPS_THINGS (100,000)
 * things behind BENCH_OPS_GATEWAYS (1,000) gateways and BENCH_OPS_PERIODS (1,000,000) alert periods (1 % open),
 * seeded straight into a fresh store. Each read is timed in BENCH_OPS_RUNS (3) runs of BENCH_OPS_CALLS (200) calls
 * after a warm-up; a figure is the median of the runs' p99 (and of their medians), so one noisy run on a shared
 * machine does not decide it. The runs take turns read by read (run 1 of every read, then run 2, ...), so a spell
 * of load falls on one run of many reads rather than on every run of one. Reads: the things list sorted by last
 * seen and filtered by one gateway (with its total), unfiltered (its first page; its total apart), `GET
 * /alerts?state=open`'s first page and a later one, and the gateways list. SQLite always; PostgreSQL when
 * BENCH_DATABASE_URL is set (a scratch schema, dropped afterwards). Budget: p99 < 50 ms each. Run by `npm run
 * bench:studio` after the browser part.
 */
import { loadavg } from 'node:os';
import { sql } from 'kysely';
import { listAlertWork } from '../../src/domain/alerts/alert-work.js';
import type { Principal } from '../../src/domain/auth/principal.js';
import { ManualClock } from '../../src/domain/clock.js';
import { listGateways } from '../../src/domain/gateways/gateway-queries.js';
import { countThings, listThings } from '../../src/domain/things/thing-queries.js';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { onEachBenchStore } from '../lib/bench-stores.js';
import { gatewayOf, gateways, now, periods, seedOperatorFleet, things } from './operator-seed.js';

const calls = Number(process.env.BENCH_OPS_CALLS ?? 200);
const runs = Number(process.env.BENCH_OPS_RUNS ?? 3);
const log = (text: string) => process.stderr.write(`bench: ${text}\n`);

const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

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
    await seedOperatorFleet(database);
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
    const timed = rows.map(() => [] as { p99: number; median: number }[]);
    for (let run = 0; run < runs; run++) {
      for (const [index, [, work]] of rows.entries()) timed[index]!.push(await time(work));
      log(`${name}: run ${run + 1} of ${runs} done`);
    }
    console.log(
      `${name}: load average after its runs ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    for (const [index, [label]] of rows.entries()) {
      const p99s = timed[index]!.map((t) => t.p99);
      const p99 = middle(p99s);
      const median = middle(timed[index]!.map((t) => t.median));
      const each = p99s.map((value) => value.toFixed(1)).join(' / ');
      console.log(
        `${name.padEnd(9)} ${label.padEnd(54)} p99 ${p99.toFixed(1).padStart(7)} ms  median ${median.toFixed(1).padStart(7)} ms  ${p99 < 50 ? 'met' : 'MISSED'}  (p99 of each run: ${each})`,
      );
    }
  } finally {
    await database.close();
  }
}

console.log(
  `SPEC 16 reads: ${things.toLocaleString('en-US')} things, ${gateways.toLocaleString('en-US')} gateways, ` +
    `${periods.toLocaleString('en-US')} alert periods; medians of ${runs} runs' p99 and median of ${calls} calls each (store and domain, no HTTP); ` +
    `budget p99 < 50 ms; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
await onEachBenchStore('ops', measure);
