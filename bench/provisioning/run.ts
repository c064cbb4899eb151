/**
 * Bulk provisioning (issue 36, SPEC section 12): an import of PROVISIONING_ROWS (100,000) things planned (dry run),
 * applied (all or none, one transaction) and applied again (all unchanged), each the median of BENCH_RUNS (3) runs
 * on a fresh organization; the process's RSS growth over the whole and each import's own (its peak over the RSS it
 * started at: the "RSS grows by less than 150 MB during it"); then the p99 of the things list filtered by
 * one label (`GET /things?label=site:X&limit=100`'s domain call) at that many labelled things. Store and domain,
 * no HTTP (the route only streams the body in). SQLite always, PostgreSQL when BENCH_DATABASE_URL is set (a scratch
 * schema, dropped afterwards). Ingest beside an import, over HTTP: ingest-beside.ts (run after this by the npm script).
 *
 * The heap's growth is capped as `thingdesk serve` caps it (HEAP_GROWING_PERCENT, default 100; 0: V8's own factor),
 * and the RSS is sampled in a thread of its own (bench/lib/rss-peak.ts). Times are wall clock and the process's CPU
 * time (on SQLite all of the work; on PostgreSQL the server's is not in it), medians: on a shared host the CPU time
 * is the steadier figure.
 *
 *   npm run bench:provisioning
 *   PROVISIONING_ROWS=5000 BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:provisioning
 */
import { capHeapGrowth } from '../../src/app/heap-growth.js';
import { loadConfig } from '../../src/config/config.js';
import { systemClock } from '../../src/domain/clock.js';
import type { ClientPrincipal } from '../../src/domain/auth/principal.js';
import { importThings } from '../../src/domain/provisioning/thing-import.js';
import { listThings } from '../../src/domain/things/thing-queries.js';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { onEachBenchStore } from '../lib/bench-stores.js';
import { rssPeakSampler } from '../lib/rss-peak.js';

const rows = Number(process.env.PROVISIONING_ROWS ?? 100_000);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const filterReads = Number(process.env.BENCH_FILTER_READS ?? 500);
const log = (text: string) => process.stderr.write(`bench: ${text}\n`);
const heapGrowingPercent = loadConfig(process.env).heapGrowingPercent;
capHeapGrowth(heapGrowingPercent);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** A delivery list: name, one of 20 groups, installed, a site of 100 and a room. */
function file(prefix: string): string {
  const lines = ['tuid,name,group_id,installation_status,label.site,label.room'];
  for (let i = 0; i < rows; i += 1)
    lines.push(`${prefix}-${String(i).padStart(6, '0')},"Sensor ${i}, hall",g-${i % 20},installed,site-${i % 100},r-${i % 37}`);
  return `${lines.join('\r\n')}\r\n`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(name: string, url: string): Promise<void> {
  const database = await openDatabase(url);
  try {
    await migrateToLatest(database);
    const store = createStore(database);
    const deps = { store, clock: systemClock, reservedTuids: new Set<string>() };
    const times = { plan: [] as number[], apply: [] as number[], again: [] as number[] };
    const cpu = { plan: [] as number[], apply: [] as number[], again: [] as number[] };
    const sampler = await rssPeakSampler();
    const rssBefore = await sampler.reset();
    const atStart = process.memoryUsage();
    log(
      `${name} before the first import: rss ${mib(atStart.rss)}, heap ${mib(atStart.heapTotal)}, outside the heap ${mib(atStart.rss - atStart.heapTotal)}`,
    );
    // Each import's own growth (its peak over the RSS it started at), beside the whole run's.
    const perImport = await rssPeakSampler();
    const growth = { plan: [] as number[], apply: [] as number[], again: [] as number[] };
    let principal: ClientPrincipal | undefined;
    for (let run = 0; run < runs; run += 1) {
      const org = `bench-${run}`;
      await database.db.insertInto('organizations').values({ id: org, name: org, name_key: org, created_at: Date.now() }).execute();
      principal = { kind: 'client', organizationId: org, clientId: 'bench', responsible: 'bench' };
      const body = Buffer.from(file(`R${run}`));
      const chunks = () => Array.from({ length: Math.ceil(body.length / 65536) }, (_, i) => body.subarray(i * 65536, (i + 1) * 65536));
      const input = { format: 'csv' as const, createGroups: true, onlyChanged: true };
      for (const [key, dryRun] of [
        ['plan', true],
        ['apply', false],
        ['again', false],
      ] as const) {
        const rssStart = await perImport.reset();
        const started = performance.now();
        const cpuBefore = process.cpuUsage();
        const plan = await importThings(deps, principal, { ...input, body: chunks(), dryRun });
        times[key].push(performance.now() - started);
        growth[key].push((await perImport.peak()) - rssStart);
        const used = process.cpuUsage(cpuBefore);
        cpu[key].push((used.user + used.system) / 1000);
        if (plan.counts.error > 0) throw new Error(`${key}: ${plan.counts.error} rows in error`);
        // Where the memory is after each import (the whole run's growth on SQLite, docs/provisioning.md "Memory").
        const memory = process.memoryUsage();
        log(
          `${name} run ${run + 1} ${key}: rss ${mib(memory.rss)}, heap used ${mib(memory.heapUsed)} of ${mib(memory.heapTotal)}, ` +
            `external ${mib(memory.external)}, outside the heap ${mib(memory.rss - memory.heapTotal)}`,
        );
      }
      log(`${name}: run ${run + 1} of ${runs} done`);
    }
    const rssPeak = await sampler.peak();
    await sampler.stop();
    await perImport.stop();
    const filterTimes: number[] = [];
    for (let i = 0; i < filterReads; i += 1) {
      const started = performance.now();
      await listThings(deps, principal!, { labels: [`site:site-${i % 100}`], limit: 100 });
      filterTimes.push(performance.now() - started);
    }
    filterTimes.sort((a, b) => a - b);
    const p99 = filterTimes[Math.floor(filterTimes.length * 0.99)]!;
    const line = (label: string, value: string) => console.log(`${name.padEnd(10)} ${label.padEnd(48)} ${value.padStart(20)}`);
    const seconds = (key: keyof typeof times) =>
      `${(median(times[key]) / 1000).toFixed(2)} s (CPU ${(median(cpu[key]) / 1000).toFixed(2)})`;
    line(`plan (dry run), ${rows} rows`, seconds('plan'));
    line(`apply (one transaction), ${rows} rows`, seconds('apply'));
    line('apply again (all unchanged)', seconds('again'));
    line('plan + apply', `${((median(times.plan) + median(times.apply)) / 1000).toFixed(2)} s`);
    line(`RSS growth (peak over start), heap growth ${heapGrowingPercent} %`, mib(rssPeak - rssBefore));
    // The first run's imports start from a fresh process; later ones from what earlier ones left allocated.
    const each = (key: keyof typeof growth) => `${mib(growth[key][0]!)} / ${mib(Math.max(...growth[key]))}`;
    line('RSS growth of one plan, first run / most', each('plan'));
    line('RSS growth of one apply, first run / most', each('apply'));
    line('RSS growth of one apply again, first run / most', each('again'));
    line(`label filter, limit 100, p99 of ${filterReads}`, `${p99.toFixed(2)} ms`);
  } finally {
    await database.close();
  }
}

console.log(`median of ${runs} runs, ${rows.toLocaleString('en-US')} rows a run (store and domain, no HTTP)`);
await onEachBenchStore('provisioning', measure);
