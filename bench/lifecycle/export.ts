/**
 * Export benchmark (issue 16): one thing with 1,000,000 messages of 12100 (four fields), exported over HTTP as CSV
 * (`GET /things/{tuid}/messages/export?format=csv&messageid=12100`) by the platform in its own process. Prints
 * rows/s and the platform's RSS before and at its peak during the export (target: it grows less than 50 MB,
 * whatever the range, because the export streams: keyset pages on SQLite, a COPY per thing on PostgreSQL). SQLite always; PostgreSQL too when
 * BENCH_DATABASE_URL is set (a scratch schema, dropped at the end).
 *
 * `tsx bench/lifecycle/export.ts` runs it alone; `runExportBench()` is what bench:lifecycle calls.
 * BENCH_EXPORT_MESSAGES=100000 makes a shorter run while developing; BENCH_EXPORT_STORES=postgres runs one store.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { systemClock } from '../../src/domain/clock.js';
import { createApiClient, createOrganization } from '../../src/domain/identity/identity-service.js';
import type { UplinkRecord } from '../../src/domain/messages/message-types.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { openDatabase } from '../../src/store/database.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { spawnReadPlatform } from '../lib/http-platform.js';
import { preparePlatformEntry } from '../lib/node-entry.js';
import { withClient } from '../lib/postgres-client.js';
import { readMemoryMiB, RssSampler } from '../lib/proc-stats.js';
import { killAll } from '../lib/processes.js';

export interface ExportBenchResult {
  store: 'sqlite' | 'postgres';
  messages: number;
  seedSeconds: number;
  exportSeconds: number;
  rowsPerSecond: number;
  megabytes: number;
  /** Platform RSS after start-up and a small warm-up export, and its peak during the export, MiB. */
  rssBeforeMiB: number;
  rssPeakMiB: number;
  rssGrowthMiB: number;
  /** RSS growth below 50 MB (issue 16). */
  pass: boolean;
}

const tuid = 'EXPORT-1';
const credentials = { clientId: 'export-bench', clientSecret: 'export-bench-secret-0123456789' };
const rssGrowthTargetMiB = 50;
const firstTs = 1_700_000_000;

/** Runs the export benchmark on SQLite and, with BENCH_DATABASE_URL, PostgreSQL. */
export async function runExportBench(options: { messages?: number; log?: (text: string) => void } = {}): Promise<ExportBenchResult[]> {
  const messages = options.messages ?? Number(process.env.BENCH_EXPORT_MESSAGES ?? 1_000_000);
  const log = options.log ?? ((text: string) => console.error(`[export] ${text}`));
  const entry = await preparePlatformEntry();
  log(`platform: ${entry.note}`);
  const results: ExportBenchResult[] = [];
  const workDir = mkdtempSync(join(tmpdir(), 'thingdesk-export-bench-'));
  try {
    const stores = (process.env.BENCH_EXPORT_STORES ?? 'sqlite,postgres').split(',');
    if (stores.includes('sqlite'))
      results.push(await benchOneStore('sqlite', `file:${join(workDir, 'store.db')}`, messages, entry, workDir, log));
    const base = process.env.BENCH_DATABASE_URL;
    if (!stores.includes('postgres')) log('PostgreSQL not selected (BENCH_EXPORT_STORES)');
    else if (base) {
      const schema = `bench_export_${randomBytes(4).toString('hex')}`;
      await withClient(base, (client) => client.query(`create schema ${schema}`));
      try {
        const scoped = new URL(base);
        scoped.searchParams.set('options', `-c search_path=${schema}`);
        results.push(await benchOneStore('postgres', scoped.toString(), messages, entry, workDir, log));
      } finally {
        await withClient(base, (client) => client.query(`drop schema if exists ${schema} cascade`));
      }
    } else log('PostgreSQL skipped: BENCH_DATABASE_URL is not set');
  } finally {
    await killAll();
    rmSync(workDir, { recursive: true, force: true });
    if (entry.buildDir) rmSync(entry.buildDir, { recursive: true, force: true });
  }
  return results;
}

async function benchOneStore(
  store: 'sqlite' | 'postgres',
  databaseUrl: string,
  messages: number,
  entry: Awaited<ReturnType<typeof preparePlatformEntry>>,
  cwd: string,
  log: (text: string) => void,
): Promise<ExportBenchResult> {
  const seedStarted = performance.now();
  await seed(databaseUrl, messages, log);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`${store}: seeded ${messages.toLocaleString('en-US')} messages in ${seedSeconds.toFixed(1)} s`);
  const platform = await spawnReadPlatform(entry, databaseUrl, cwd);
  try {
    const token = await clientToken(platform.baseUrl);
    const path = `${platform.baseUrl}/api/v1/things/${tuid}/messages/export?format=csv&messageid=12100`;
    // Warm-up: the route, the statements and the CSV code are loaded before the baseline is read.
    await download(`${path}&to=${firstTs + 5000}`, token);
    const rssBeforeMiB = readMemoryMiB(platform.process.pid)!.rss;
    // VmHWM is left out: the platform's start-up may have peaked higher than anything the export does.
    const sampler = new RssSampler(platform.process.pid, false, 50);
    const timeline: number[] = [];
    const tick = setInterval(() => timeline.push(Math.round(readMemoryMiB(platform.process.pid)?.rss ?? 0)), 1000);
    const started = performance.now();
    const { rows, bytes } = await download(path, token);
    const exportSeconds = (performance.now() - started) / 1000;
    const rssPeakMiB = sampler.stop();
    clearInterval(tick);
    log(`${store}: RSS each second during the export (MiB): ${timeline.join(' ')}`);
    if (rows !== messages) throw new Error(`${store}: the export had ${rows} rows, expected ${messages}`);
    const rssGrowthMiB = Math.round((rssPeakMiB - rssBeforeMiB) * 10) / 10;
    return {
      store,
      messages,
      seedSeconds: round(seedSeconds),
      exportSeconds: round(exportSeconds),
      rowsPerSecond: Math.round(rows / exportSeconds),
      megabytes: round(bytes / 1e6),
      rssBeforeMiB: round(rssBeforeMiB),
      rssPeakMiB,
      rssGrowthMiB,
      pass: rssGrowthMiB < rssGrowthTargetMiB,
    };
  } finally {
    await platform.stop();
  }
}

/** One thing's 12100 weather reports, one a minute, written through the platform's batch writer. */
async function seed(databaseUrl: string, messages: number, log: (text: string) => void): Promise<void> {
  const database = await openDatabase(databaseUrl);
  try {
    await migrateToLatest(database);
    const deps = { store: createStore(database), clock: systemClock };
    await createOrganization(deps, { name: 'Export bench', id: 'export-bench' });
    await createApiClient(deps, { organizationId: 'export-bench', name: 'export bench', ...credentials });
    const commit = ingestBatchWriter(database);
    try {
      let pending: UplinkRecord[] = [];
      let inFlight: Promise<unknown> = Promise.resolve();
      for (let start = 0; start < messages; start += 1000) {
        const payload = Array.from({ length: Math.min(1000, messages - start) }, (_, i) => {
          const n = start + i;
          return {
            tsmId: 12100,
            tsmEv: 10,
            tsmTs: firstTs + n * 60,
            tsmTuid: tuid,
            tsmGw: 'EXPORT-GW',
            airp: 101325 + (n % 400) - 200,
            humd: Math.round(400 + 200 * Math.sin(n / 500)) / 10,
            temp: Math.round(210 + 60 * Math.sin(n / 1440)) / 10,
            lght: n % 1000,
          };
        });
        const parsed = parseUplink(JSON.stringify(payload), {
          organizationId: 'export-bench',
          gatewayTuid: 'EXPORT-GW',
          source: 'bench',
          client: 'bench',
          receivedAt: Date.now(),
        });
        pending.push(...parsed.records);
        if (pending.length >= 10_000 || start + 1000 >= messages) {
          const records = pending;
          pending = [];
          // One transaction in flight while the next is built (the SQLite writer commits in its own thread).
          await inFlight;
          inFlight = commit(records, []);
          if ((start + 1000) % 200_000 === 0) log(`seeding: ${(start + 1000).toLocaleString('en-US')}`);
        }
      }
      await inFlight;
    } finally {
      await commit.close();
    }
  } finally {
    await database.close();
  }
}

async function clientToken(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/auth/client-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: credentials.clientId, client_secret: credentials.clientSecret }),
  });
  if (!response.ok) throw new Error(`client token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: { token: string } }).data.token;
}

/** Reads the whole export as fast as the client can, counting CSV records (CRLF) and bytes; header excluded. */
async function download(url: string, token: string): Promise<{ rows: number; bytes: number }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok || !response.body) throw new Error(`export: ${response.status} ${await response.text()}`);
  let records = 0;
  let bytes = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) records += 1;
  }
  return { rows: records - 1, bytes };
}

const round = (value: number) => Math.round(value * 10) / 10;

/** The results as a table, for the console and the closing note. */
export function formatExportResults(results: readonly ExportBenchResult[]): string {
  const lines = [
    '| store | messages | export s | rows/s | MB | RSS before MiB | RSS peak MiB | growth MiB (< 50) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results)
    lines.push(
      `| ${r.store} | ${r.messages.toLocaleString('en-US')} | ${r.exportSeconds} | ${r.rowsPerSecond.toLocaleString('en-US')} | ${r.megabytes} | ${r.rssBeforeMiB} | ${r.rssPeakMiB} | ${r.rssGrowthMiB} ${r.pass ? 'pass' : 'FAIL'} |`,
    );
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = await runExportBench();
  console.log(formatExportResults(results));
}
