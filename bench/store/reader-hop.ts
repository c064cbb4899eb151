/**
 * What a read costs on the main SQLite connection against a hop to a reader thread (sqlite-reader-pool.ts), to
 * choose which reads stay on the event loop: a page of one thing's messages (20, 100, 1,000) and a thing by TUID.
 * For each, the time the event loop is held per read: on the main connection, the whole read; through a thread,
 * the loop's share (posting the job, cloning the answer back, as eventLoopUtilization counts it) and the latency.
 * Seeds one thing with 5,000 small messages into a fresh store file. BENCH_READS (2000) reads per figure.
 *
 *   npx tsx bench/store/reader-hop.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';

const reads = Number(process.env.BENCH_READS ?? 2000);
const dir = mkdtempSync(join(tmpdir(), 'thingdesk-hop-'));
const url = `file:${join(dir, 'hop.db')}`;

const onMain = await openDatabase(url, { readerThreads: 0 });
await migrateToLatest(onMain);
const mainStore = createStore(onMain);
await createOrganization({ store: mainStore, clock: systemClock }, { name: 'Acme', id: 'acme' });
const commit = ingestBatchWriter(onMain);
const messages = Array.from({ length: 5000 }, (_, i) => ({ tsmId: 12100, tsmEv: 10, tsmTs: 1_790_000_000 + i, tsmTuid: 'HOP-1', temp: i }));
const context = { organizationId: 'acme', gatewayTuid: 'GW-1', source: 'bench', client: null, receivedAt: Date.now() };
await commit(parseUplink(JSON.stringify(messages), context).records, []);
await commit.close();

const pooled = await openDatabase(url, { readerThreads: 1 });
if (pooled.driver.dialect !== 'sqlite' || !pooled.driver.readers) throw new Error('no reader threads');
const readers = pooled.driver.readers;

const pageText = 'select body from messages where tuid = ? order by tsm_ts desc, tsm_id desc, fingerprint desc limit ?';
const thingText = 'select * from things where tuid = ?';

async function measure(name: string, text: string, parameters: unknown[], shape: 'firstColumn' | 'rows') {
  const statement = onMain.driver.dialect === 'sqlite' ? onMain.driver.connection.prepare(text) : undefined;
  if (shape === 'firstColumn') statement!.pluck();
  for (let i = 0; i < 100; i++) statement!.all(...parameters);
  let started = performance.now();
  for (let i = 0; i < reads; i++) statement!.all(...parameters);
  const mainMs = (performance.now() - started) / reads;

  const job = { kind: 'statements', statements: [{ text, parameters, shape }] } as const;
  for (let i = 0; i < 100; i++) await readers.run(job);
  const before = performance.eventLoopUtilization();
  started = performance.now();
  for (let i = 0; i < reads; i++) await readers.run(job);
  const elapsed = performance.now() - started;
  const used = performance.eventLoopUtilization(before);
  console.log(
    `${name.padEnd(22)} main connection ${mainMs.toFixed(3)} ms held | thread: loop held ${(used.active / reads).toFixed(3)} ms, latency ${(elapsed / reads).toFixed(3)} ms`,
  );
}

await measure('thing by TUID', thingText, ['HOP-1'], 'rows');
for (const limit of [20, 100, 200, 500, 1000]) await measure(`message page of ${limit}`, pageText, ['HOP-1', limit], 'firstColumn');

await pooled.close();
await onMain.close();
rmSync(dir, { recursive: true, force: true });
