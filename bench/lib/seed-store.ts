/**
 * A store seeded for the read benchmarks (bench:rest, bench:graphql): one organization with a Manager and an API
 * client of known credentials, 10,000 things behind 100 gateways and 100 messages per thing (1,000,000), written
 * through the platform's own batch writer (`ingestBatchWriter`) from records built by `parseUplink`, as the
 * platform builds them from MQTT payloads. The messages are the simulator's catalog messages (VirtualDevice: weather,
 * hall, battery, neighbours, location, system info), each with its own tsmTs (one a minute per thing), written
 * round by round (every thing's n-th message, then every thing's n+1-th) as a live fleet would deliver them.
 *
 * SQLite seeds are cached in bench/results/ (git-ignored), because seeding takes a while: the file name carries a
 * hash of the seed's shape and of every migration file, so a changed or added migration means a fresh seed, and
 * the cached file's schema_migrations and row counts are checked again before it is used. Each run works on a
 * private copy of the cached file (the platform writes to its store: signing keys, sessions, alerts). A seed is
 * written to a temporary name and renamed when complete, so an interrupted or concurrent run never leaves or
 * reads a half-seeded cache. BENCH_SEED_CACHE=0 seeds a fresh file every run; BENCH_RESEED=1 replaces the cache.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { SqliteBinding } from '../../src/store/sqlite-binding.js';
import { systemClock } from '../../src/domain/clock.js';
import { createApiClient, createOrganization, createUser } from '../../src/domain/identity/identity-service.js';
import type { UplinkRecord } from '../../src/domain/messages/message-types.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { layOutFleet, type DeviceUplink, type VirtualDevice } from '../../src/simulator/index.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations/index.js';
import { createStore } from '../../src/store/store.js';
import { repoRoot } from './node-entry.js';

/** Credentials of the seeded organization (the benchmarks sign in with these). */
export const seedCredentials = {
  organizationName: 'Bench',
  organizationId: 'bench',
  email: 'manager@bench.test',
  password: 'bench-manager-password',
  clientId: 'bench-client',
  clientSecret: 'bench-client-secret-0123456789',
} as const;

export interface SeedShape {
  gateways: number;
  things: number;
  messagesPerThing: number;
  /** Records per ingestBatchWriter call (one transaction). */
  transactionSize: number;
}

export const defaultSeedShape: SeedShape = { gateways: 100, things: 10_000, messagesPerThing: 100, transactionSize: 10_000 };

/** Bump when the way the seed is built changes (not the schema: migrations are hashed separately). */
const seedFormatVersion = 1;
const tuidPrefix = 'BENCH';
/** Seconds between two messages of one thing. */
const messageSpacingS = 60;

export interface SeedStats {
  things: number;
  messages: number;
  /** Wall-clock seconds of the whole seeding (identity, parsing, commits). */
  seconds: number;
  /** Of which: waiting for ingestBatchWriter commits. */
  commitSeconds: number;
  duplicates: number;
  deadLetters: number;
}

/** The seeded things' TUIDs (deterministic: the simulator's fleet layout). */
export function seededTuids(shape: SeedShape = defaultSeedShape): string[] {
  return layOutFleet(tuidPrefix, shape.gateways, shape.things).flatMap((gateway) => gateway.devices.map((device) => device.tuid));
}

/** Seeds an empty, migrated-or-not store (SQLite or PostgreSQL). */
export async function seedDatabase(database: Database, shape: SeedShape, log: (text: string) => void): Promise<SeedStats> {
  const started = performance.now();
  await migrateToLatest(database);
  const deps = { store: createStore(database), clock: systemClock };
  const organization = await createOrganization(deps, { name: seedCredentials.organizationName, id: seedCredentials.organizationId });
  await createUser(deps, {
    organizationId: organization.id,
    email: seedCredentials.email,
    password: seedCredentials.password,
    role: 'Manager',
  });
  await createApiClient(deps, {
    organizationId: organization.id,
    name: 'bench client',
    clientId: seedCredentials.clientId,
    clientSecret: seedCredentials.clientSecret,
  });

  const layout = layOutFleet(tuidPrefix, shape.gateways, shape.things);
  const queues = new Map<VirtualDevice, DeviceUplink[]>();
  // The newest round is a minute ago; the first one messagesPerThing minutes before that.
  const firstTs = Math.floor(Date.now() / 1000) - (shape.messagesPerThing + 1) * messageSpacingS;
  const nextMessage = (device: VirtualDevice, round: number, deviceIndex: number): DeviceUplink => {
    let queue = queues.get(device);
    if (!queue || queue.length === 0) {
      queue = device.nextMessages((firstTs + round * messageSpacingS) * 1000);
      queues.set(device, queue);
    }
    // A distinct second per message of a thing; things are spread over the minute.
    return { ...queue.shift()!, tsmTs: firstTs + round * messageSpacingS + (deviceIndex % messageSpacingS) };
  };

  const commit = ingestBatchWriter(database);
  const stats: SeedStats = { things: shape.things, messages: 0, seconds: 0, commitSeconds: 0, duplicates: 0, deadLetters: 0 };
  let inFlight: Promise<void> = Promise.resolve();
  let pending: UplinkRecord[] = [];
  let lastLog = performance.now();
  const flush = async () => {
    const records = pending;
    pending = [];
    // One transaction in flight while the next one is built (the SQLite writer commits in its own thread).
    await inFlight;
    inFlight = (async () => {
      const commitStarted = performance.now();
      const result = await commit(records, []);
      stats.commitSeconds += (performance.now() - commitStarted) / 1000;
      stats.messages += result.stored.length;
      stats.duplicates += result.duplicates;
      stats.deadLetters += result.deadLetters.length;
    })();
    if (performance.now() - lastLog > 5000) {
      lastLog = performance.now();
      log(`seeding: ${stats.messages.toLocaleString('en-US')} messages stored (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  };
  try {
    for (let round = 0; round < shape.messagesPerThing; round++) {
      for (const { gatewayTuid, devices } of layout) {
        const payload = JSON.stringify(devices.map((device, index) => nextMessage(device, round, index)));
        const parsed = parseUplink(payload, {
          organizationId: organization.id,
          gatewayTuid,
          source: `thingdesk/${organization.id}/up/${gatewayTuid}`,
          client: 'bench-seed',
          receivedAt: (firstTs + round * messageSpacingS) * 1000,
        });
        if (parsed.deadLetters.length > 0) throw new Error(`seed message refused by parseUplink: ${parsed.deadLetters[0]!.reason}`);
        pending.push(...parsed.records);
        if (pending.length >= shape.transactionSize) await flush();
      }
    }
    if (pending.length > 0) await flush();
    await inFlight;
  } finally {
    await inFlight.catch(() => undefined);
    await commit.close();
  }
  const expected = shape.things * shape.messagesPerThing;
  if (stats.messages !== expected) {
    throw new Error(
      `seeding stored ${stats.messages} messages, expected ${expected} (${stats.duplicates} duplicates, ${stats.deadLetters} dead letters)`,
    );
  }
  stats.seconds = (performance.now() - started) / 1000;
  return stats;
}

export interface SeededSqlite {
  /** A private copy of the seed for this run, in `workDir`. */
  path: string;
  workDir: string;
  /** What was done: seeded now, or copied from the cache. */
  note: string;
  stats: SeedStats;
  cached: boolean;
}

const migrationsDir = join(repoRoot, 'src/store/migrations');

/** The cache key: the seed's shape and format, and the name and content of every migration file. */
function seedKey(shape: SeedShape): string {
  const hash = createHash('sha256').update(JSON.stringify({ seedFormatVersion, shape, migrations: Object.keys(migrations) }));
  for (const file of readdirSync(migrationsDir).sort()) hash.update(`\u0000${file}\u0000`).update(readFileSync(join(migrationsDir, file)));
  return hash.digest('hex').slice(0, 12);
}

/** Why a cached seed file cannot be used, or undefined when it matches the current migrations and shape. */
function cachedSeedProblem(path: string, shape: SeedShape): string | undefined {
  let connection: SqliteDatabase.Database | undefined;
  try {
    connection = new SqliteBinding(path, { readonly: true, fileMustExist: true });
    const applied = connection
      .prepare<[], { name: string }>('select name from schema_migrations order by name')
      .all()
      .map((row) => row.name);
    const wanted = Object.keys(migrations).sort();
    if (applied.join(',') !== wanted.join(',')) return `its migrations (${applied.join(', ')}) differ from the current ones`;
    const things = connection.prepare<[], { n: number }>('select count(*) as n from things').get()!.n;
    const messages = connection.prepare<[], { n: number }>('select count(*) as n from messages').get()!.n;
    if (things !== shape.things || messages !== shape.things * shape.messagesPerThing)
      return `it holds ${things} things and ${messages} messages`;
    return undefined;
  } catch (error) {
    return `it cannot be read: ${(error as Error).message}`;
  } finally {
    connection?.close();
  }
}

/**
 * A seeded SQLite file for this run: from the cache when a valid one exists (and caching is on), else seeded now
 * (and cached). Returns a private copy in a fresh temporary directory; remove `workDir` when done.
 */
export async function prepareSeededSqlite(shape: SeedShape, log: (text: string) => void): Promise<SeededSqlite> {
  const useCache = process.env.BENCH_SEED_CACHE !== '0';
  const cacheDir = join(repoRoot, 'bench/results');
  const key = seedKey(shape);
  const cachePath = join(cacheDir, `seed-v${seedFormatVersion}-${key}.db`);
  const statsPath = `${cachePath}.json`;
  const workDir = mkdtempSync(join(tmpdir(), 'thingdesk-bench-read-'));
  const path = join(workDir, 'bench.db');

  if (useCache && process.env.BENCH_RESEED !== '1' && existsSync(cachePath) && existsSync(statsPath)) {
    const problem = cachedSeedProblem(cachePath, shape);
    if (problem === undefined) {
      const started = performance.now();
      copyFileSync(cachePath, path);
      const stats = JSON.parse(readFileSync(statsPath, 'utf8')) as SeedStats & { seededAt: string };
      const sizeMiB = statSync(path).size / 1024 / 1024;
      const note =
        `cached seed ${cachePath.slice(repoRoot.length)} (seeded ${stats.seededAt} in ${stats.seconds.toFixed(1)} s; ` +
        `copied ${sizeMiB.toFixed(0)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s; BENCH_RESEED=1 seeds afresh)`;
      return { path, workDir, note, stats, cached: true };
    }
    log(`not using the cached seed ${cachePath}: ${problem}`);
  }

  log(
    `seeding ${shape.things.toLocaleString('en-US')} things and ${(shape.things * shape.messagesPerThing).toLocaleString('en-US')} messages into a fresh SQLite file`,
  );
  const database = await openDatabase(`file:${path}`);
  let stats: SeedStats;
  try {
    stats = await seedDatabase(database, shape, log);
  } finally {
    await database.close();
  }
  // Fold the WAL into the file, so one file is the whole seed (and copying it is enough).
  const connection = new SqliteBinding(path);
  connection.pragma('wal_checkpoint(TRUNCATE)');
  connection.close();
  let note = `seeded now in ${stats.seconds.toFixed(1)} s (${stats.commitSeconds.toFixed(1)} s of it in ingestBatchWriter commits, ${Math.round(stats.messages / stats.commitSeconds).toLocaleString('en-US')} rows/s)`;
  if (useCache) {
    mkdirSync(cacheDir, { recursive: true });
    // Written under a temporary name and renamed: a reader never sees a partial file. Older seeds go (their
    // migrations are stale); a run still copying one keeps its open file.
    const partial = `${cachePath}.partial-${process.pid}`;
    copyFileSync(path, partial);
    writeFileSync(`${statsPath}.partial-${process.pid}`, `${JSON.stringify({ ...stats, seededAt: new Date().toISOString() }, null, 2)}\n`);
    renameSync(`${statsPath}.partial-${process.pid}`, statsPath);
    renameSync(partial, cachePath);
    const current = basename(cachePath);
    for (const file of readdirSync(cacheDir)) {
      // Checking a cached seed opens it read-only, which leaves (empty) -wal and -shm files beside it.
      if (/^seed-.*\.db(\.json|-wal|-shm)?$/.test(file) && !file.startsWith(current)) rmSync(join(cacheDir, file), { force: true });
    }
    note += `; cached as ${cachePath.slice(repoRoot.length)}`;
  } else note += '; not cached (BENCH_SEED_CACHE=0)';
  return { path, workDir, note, stats, cached: false };
}
