/**
 * A group's export on PostgreSQL at the store, without HTTP: the store's COPY per thing (what the export does)
 * against one COPY of all the group's things ordered by tuid (what it could do), both decoded. THINGS things of
 * PER_THING messages each (default 1000 x 100), three runs, in a scratch schema of BENCH_DATABASE_URL (dropped).
 * The figures are in docs/decisions.md, Export. `tsx bench/lifecycle/group-export-copies.ts`
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { openDatabase } from '../../src/store/database.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { BinaryCopyDecoder } from '../../src/store/postgres-message-export.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { systemClock } from '../../src/domain/clock.js';

const base = process.env.BENCH_DATABASE_URL;
if (!base) throw new Error('set BENCH_DATABASE_URL (a PostgreSQL database where a scratch schema may be created)');
const things = Number(process.env.THINGS ?? 1000);
const perThing = Number(process.env.PER_THING ?? 100);
const schema = `probe_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`create schema ${schema}`);
const url = new URL(base);
url.searchParams.set('options', `-c search_path=${schema}`);
const database = await openDatabase(url.toString());
try {
  await migrateToLatest(database);
  const store = createStore(database);
  await createOrganization({ store, clock: systemClock }, { name: 'p', id: 'p' });
  const commit = ingestBatchWriter(database);
  const tuids: string[] = [];
  for (let t = 0; t < things; t++) {
    const tuid = `T-${String(t).padStart(5, '0')}`;
    tuids.push(tuid);
    const payload = Array.from({ length: perThing }, (_, i) => ({
      tsmId: 12100,
      tsmEv: 10,
      tsmTs: 1_700_000_000 + i * 60,
      tsmTuid: tuid,
      temp: i,
    }));
    const parsed = parseUplink(JSON.stringify(payload), {
      organizationId: 'p',
      gatewayTuid: 'GW',
      source: 'b',
      client: 'b',
      receivedAt: Date.now(),
    });
    await commit(parsed.records, []);
  }
  await commit.close();
  for (let run = 0; run < 3; run++) {
    let started = performance.now();
    let rows = 0;
    for await (const bodies of store.messages.exportBodies({ tuids })) rows += bodies.length;
    const perThingMs = performance.now() - started;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    started = performance.now();
    let bytes = 0;
    const list = tuids.map((t) => client.escapeLiteral(t)).join(', ');
    const stream = client.query(
      copyTo(
        `copy (select body from messages where tuid in (${list}) order by tuid, tsm_ts, tsm_id, fingerprint) to stdout (format binary)`,
      ),
    );
    const decoder = new BinaryCopyDecoder();
    for await (const chunk of stream as AsyncIterable<Buffer>) bytes += decoder.decode(chunk).length;
    const oneQueryMs = performance.now() - started;
    await client.end();
    console.log(
      `${things} things x ${perThing}: ${rows} rows; COPY per thing ${perThingMs.toFixed(0)} ms; one COPY ordered by tuid ${oneQueryMs.toFixed(0)} ms (${bytes} rows, decoded)`,
    );
  }
} finally {
  await database.close();
  await admin.query(`drop schema ${schema} cascade`);
  await admin.end();
}
