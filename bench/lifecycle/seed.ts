/**
 * The lifecycle benchmark's store (issue 16): one thing with a year of one 12100 message a minute (525,600
 * messages with four numeric fields: airp, humd, temp, lght) among `fleetThings` things with a month each, written
 * through the platform's own batch writer (`ingestBatchWriter`), so the hourly rollups are built exactly as live
 * ingest builds them. The fleet reports every `fleetIntervalS` (default 3600 s: 720 messages a thing, 720,000 in
 * all; BENCH_FLEET_INTERVAL_S=600 gives the 10-minute fleet of the sizing, 4.3 million messages).
 */
import { systemClock } from '../../src/domain/clock.js';
import { createApiClient, createOrganization } from '../../src/domain/identity/identity-service.js';
import type { UplinkRecord } from '../../src/domain/messages/message-types.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import type { Database } from '../../src/store/database.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { retentionExpiry } from '../../src/store/retention/retention-expiry.js';
import type { SqliteExpiryJob } from '../../src/store/retention/sqlite-expiry.js';
import { createStore } from '../../src/store/store.js';
import { seedCredentials } from '../lib/seed-store.js';

export interface LifecycleSeedShape {
  yearMessages: number;
  yearSpacingS: number;
  fleetThings: number;
  fleetDays: number;
  fleetIntervalS: number;
  transactionSize: number;
  /** Compact the hourly rollups of past days into days after seeding, as the retention sweep does (BENCH_COMPACT=0: not). */
  compact: boolean;
}

const numberFromEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

export const lifecycleSeedShape: LifecycleSeedShape = {
  yearMessages: numberFromEnv('BENCH_YEAR_MESSAGES', 525_600),
  yearSpacingS: 60,
  fleetThings: numberFromEnv('BENCH_FLEET_THINGS', 1000),
  fleetDays: 30,
  fleetIntervalS: numberFromEnv('BENCH_FLEET_INTERVAL_S', 3600),
  transactionSize: 10_000,
  compact: process.env.BENCH_COMPACT !== '0',
};

export const yearTuid = 'YEAR-0001';

export interface LifecycleSeed {
  /** Unix seconds: the year thing's first and last message. */
  yearFrom: number;
  yearTo: number;
  messages: number;
  seconds: number;
  /** The compaction after seeding: rows it read (raw messages and hourly rollup rows) and its time. */
  compaction?: { rows: number; seconds: number };
}

/** A weather reading that drifts smoothly, so min/max/avg are not trivial. */
function weather(tuid: string, tsmTs: number, phase: number): Record<string, unknown> {
  const day = (2 * Math.PI * (tsmTs % 86_400)) / 86_400;
  return {
    tsmId: 12100,
    tsmTs,
    tsmTuid: tuid,
    tsmGw: 'GW-BENCH',
    airp: Math.round(101_325 + 300 * Math.sin(day / 7 + phase)),
    humd: Math.round(450 + 200 * Math.cos(day + phase)) / 10,
    temp: Math.round(200 + 60 * Math.sin(day + phase)) / 10,
    lght: Math.max(0, Math.round(800 * Math.sin(day - Math.PI / 2 + phase))),
  };
}

/** Migrates `database`, creates the bench organization and API client, and seeds it (see the file comment). */
export async function seedLifecycle(database: Database, shape: LifecycleSeedShape, log: (text: string) => void): Promise<LifecycleSeed> {
  const started = performance.now();
  await migrateToLatest(database);
  const deps = { store: createStore(database), clock: systemClock };
  const organization = await createOrganization(deps, { name: seedCredentials.organizationName, id: seedCredentials.organizationId });
  await createApiClient(deps, {
    organizationId: organization.id,
    name: 'bench client',
    clientId: seedCredentials.clientId,
    clientSecret: seedCredentials.clientSecret,
  });
  const yearTo = Math.floor(Date.now() / 1000 / 86_400) * 86_400 - shape.yearSpacingS;
  const yearFrom = yearTo - (shape.yearMessages - 1) * shape.yearSpacingS;
  const commit = ingestBatchWriter(database);
  let messages = 0;
  const compaction = { rows: 0, seconds: 0 };
  let pending: Record<string, unknown>[] = [];
  let records: UplinkRecord[] = [];
  let lastLog = performance.now();
  const commitRecords = async () => {
    const result = await commit(records, []);
    records = [];
    messages += result.stored.length;
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      log(`seeding: ${messages.toLocaleString('en-US')} messages (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  };
  // parseUplink takes at most 1000 messages a payload; a transaction holds several payloads' records.
  const parsePending = async () => {
    const parsed = parseUplink(JSON.stringify(pending), {
      organizationId: organization.id,
      gatewayTuid: 'GW-BENCH',
      source: 'bench-seed',
      client: 'bench-seed',
      receivedAt: Date.now(),
    });
    pending = [];
    if (parsed.deadLetters.length > 0) throw new Error(`seed message refused: ${parsed.deadLetters[0]!.reason}`);
    records.push(...parsed.records);
    if (records.length >= shape.transactionSize) await commitRecords();
  };
  const flush = async () => {
    if (pending.length > 0) await parsePending();
    if (records.length > 0) await commitRecords();
  };
  const add = async (message: Record<string, unknown>) => {
    pending.push(message);
    if (pending.length >= 1000) await parsePending();
  };
  try {
    for (let i = 0; i < shape.yearMessages; i++) await add(weather(yearTuid, yearFrom + i * shape.yearSpacingS, 0));
    await flush();
    const fleetFrom = yearTo - shape.fleetDays * 86_400;
    for (let ts = fleetFrom; ts <= yearTo; ts += shape.fleetIntervalS) {
      for (let thing = 0; thing < shape.fleetThings; thing++) {
        const tuid = `FLEET-${String(thing).padStart(4, '0')}`;
        await add(weather(tuid, ts + (thing % shape.fleetIntervalS), thing / shape.fleetThings));
      }
    }
    await flush();
    if (shape.compact) {
      // As the retention sweep would have done on a store that grew over a year: days that are over, compacted.
      const compactStarted = performance.now();
      const nowS = Date.now() / 1000;
      const before = { rawBefore: Math.floor((nowS - 300) / 3600) * 3600, hourlyBefore: Math.floor((nowS - 3600) / 86_400) * 86_400 };
      // SQLite: the writer thread's steps back to back (the sweep rests as long as each step between them), so the
      // time is the compaction's work alone.
      const expire = commit.expire;
      compaction.rows = expire ? await compactWithoutRests(expire, before) : await retentionExpiry(database, commit).compactRollups(before);
      compaction.seconds = (performance.now() - compactStarted) / 1000;
      log(
        `seeding: compaction read ${compaction.rows.toLocaleString('en-US')} rows (raw messages and hourly rollups) in ${compaction.seconds.toFixed(0)} s`,
      );
    }
  } finally {
    await commit.close();
  }
  return { yearFrom, yearTo, messages, seconds: (performance.now() - started) / 1000, ...(shape.compact ? { compaction } : {}) };
}

async function compactWithoutRests(
  expire: (job: SqliteExpiryJob) => Promise<number>,
  before: { rawBefore: number; hourlyBefore: number },
): Promise<number> {
  let read = 0;
  for (const tier of ['raw', 'hourly'] as const)
    for (let restart = true; ; restart = false) {
      const step = await expire({ kind: 'compactRollups', tier, before: before[`${tier}Before`], limit: 2000, restart });
      read += step;
      if (step === 0) break;
    }
  return read;
}
