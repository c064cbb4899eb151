/**
 * Store sizing (docs/operations.md, Sizing): ingests N messages of the simulator's realistic mix (weather, hall,
 * battery, neighbours, location, system info; bench/lib/seed-store.ts) through the platform's batch writer, then
 * measures the bytes each stored message costs: on SQLite the pages of the messages table (dbstat, after a WAL
 * checkpoint) and the whole file, on PostgreSQL pg_total_relation_size('messages') (table, TOAST and primary key)
 * after VACUUM. Prints bytes per message and a table of fleet size × report interval → GB per month of raw
 * messages; then the rollups, compacted into days as the sweep leaves them, per rolled-up hour. SQLite always; PostgreSQL with BENCH_DATABASE_URL (a scratch schema, dropped at the end).
 *
 * `tsx bench/lifecycle/sizing.ts`; SIZING_THINGS (default 1000) × SIZING_MESSAGES_PER_THING (default 100).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase, type Database } from '../../src/store/database.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { retentionExpiry } from '../../src/store/retention/retention-expiry.js';
import { withClient } from '../lib/postgres-client.js';
import { seedDatabase, type SeedShape } from '../lib/seed-store.js';

export interface SizingResult {
  store: 'sqlite' | 'postgres';
  messages: number;
  /** The messages table (and its key) divided by the messages it holds. */
  bytesPerMessage: number;
  /** Average length of the stored JSON body. */
  averageBodyBytes: number;
  /** The whole store (SQLite: the file; PostgreSQL: the schema's relations) divided by the messages. */
  storeBytesPerMessage: number;
  /** Rolled-up hours (per thing and per group; hourly rows and hours of compacted days) and the bytes each costs. */
  rollupRows: number;
  bytesPerRollupRow: number;
}

const secondsPerMonth = 30 * 24 * 3600;
export const fleetSizes = [100, 1_000, 10_000, 100_000] as const;
export const reportIntervals: readonly [string, number][] = [
  ['1 min', 60],
  ['10 min', 600],
  ['1 h', 3600],
];

export async function measureSizing(
  shape?: Partial<SeedShape>,
  log = (text: string) => console.error(`[sizing] ${text}`),
): Promise<SizingResult[]> {
  const things = shape?.things ?? Number(process.env.SIZING_THINGS ?? 1000);
  const full: SeedShape = {
    gateways: Math.max(1, Math.round(things / 100)),
    things,
    messagesPerThing: shape?.messagesPerThing ?? Number(process.env.SIZING_MESSAGES_PER_THING ?? 100),
    transactionSize: 10_000,
  };
  const results: SizingResult[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'thingdesk-sizing-'));
  try {
    const path = join(dir, 'store.db');
    const database = await openDatabase(`file:${path}`);
    try {
      const stats = await seedDatabase(database, full, log);
      await compactEverything(database);
      results.push(await measureSqlite(database, path, stats.messages));
    } finally {
      await database.close();
    }
    const base = process.env.BENCH_DATABASE_URL;
    if (base) {
      const schema = `bench_sizing_${randomBytes(4).toString('hex')}`;
      await withClient(base, (client) => client.query(`create schema ${schema}`));
      try {
        const scoped = new URL(base);
        scoped.searchParams.set('options', `-c search_path=${schema}`);
        const pgDatabase = await openDatabase(scoped.toString());
        try {
          const stats = await seedDatabase(pgDatabase, full, log);
          await compactEverything(pgDatabase);
          results.push(await measurePostgres(scoped.toString(), schema, stats.messages));
        } finally {
          await pgDatabase.close();
        }
      } finally {
        await withClient(base, (client) => client.query(`drop schema if exists ${schema} cascade`));
      }
    } else log('PostgreSQL skipped: BENCH_DATABASE_URL is not set');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

const rollupTables = [
  'thing_rollups',
  'group_rollups',
  'thing_rollup_days',
  'group_rollup_days',
  'thing_rollup_day_hours',
  'group_rollup_day_hours',
];
/** Rolled-up hours held: hourly rows and the hours packed in compacted days. */
const rolledUpHoursSql = `select (select count(*) from thing_rollups) + (select count(*) from group_rollups)
  + (select coalesce(sum(hours), 0) from thing_rollup_days) + (select coalesce(sum(hours), 0) from group_rollup_days)`;

/** Everything rolled up and compacted into days, as the retention sweep leaves a store once its days are over. */
async function compactEverything(database: Database): Promise<void> {
  const writer = ingestBatchWriter(database);
  try {
    const farAhead = Math.floor(Date.now() / 1000 / 86_400 + 30) * 86_400;
    await retentionExpiry(database, writer).compactRollups({ rawBefore: farAhead, hourlyBefore: farAhead });
  } finally {
    await writer.close();
  }
}

async function measureSqlite(database: Database, path: string, messages: number): Promise<SizingResult> {
  if (database.driver.dialect !== 'sqlite') throw new Error('not SQLite');
  const connection = database.driver.connection;
  connection.pragma('wal_checkpoint(TRUNCATE)');
  const tableBytes = connection.prepare<[], number>("select sum(pgsize) from dbstat where name = 'messages'").pluck().get()!;
  const body = connection.prepare<[], number>('select avg(length(body)) from messages').pluck().get()!;
  const rollupBytes = connection
    .prepare<[], number>(`select sum(pgsize) from dbstat where name in (${rollupTables.map((t) => `'${t}'`).join(', ')})`)
    .pluck()
    .get()!;
  const rollupRows = connection.prepare<[], number>(rolledUpHoursSql).pluck().get()!;
  return {
    store: 'sqlite',
    messages,
    bytesPerMessage: Math.round(tableBytes / messages),
    averageBodyBytes: Math.round(body),
    storeBytesPerMessage: Math.round(statSync(path).size / messages),
    rollupRows,
    bytesPerRollupRow: Math.round(rollupBytes / Math.max(1, rollupRows)),
  };
}

async function measurePostgres(url: string, schema: string, messages: number): Promise<SizingResult> {
  return withClient(url, async (client) => {
    await client.query('vacuum analyze');
    // messages is partitioned by arrival week (migration 0012): its size is its partitions'.
    const table = await client.query<{ bytes: string; body: string }>(
      `select (select sum(pg_total_relation_size(inhrelid)) from pg_inherits where inhparent = 'messages'::regclass) as bytes,
              (select avg(octet_length(body)) from messages) as body`,
    );
    const rollups = await client.query<{ bytes: string; rows: string }>(
      `select ${rollupTables.map((t) => `pg_total_relation_size('${t}')`).join(' + ')} as bytes, (${rolledUpHoursSql}) as rows`,
    );
    const all = await client.query<{ bytes: string }>(
      `select sum(pg_total_relation_size(c.oid)) as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = $1 and c.relkind in ('r', 'm')`,
      [schema],
    );
    return {
      store: 'postgres' as const,
      messages,
      bytesPerMessage: Math.round(Number(table.rows[0]!.bytes) / messages),
      averageBodyBytes: Math.round(Number(table.rows[0]!.body)),
      storeBytesPerMessage: Math.round(Number(all.rows[0]!.bytes) / messages),
      rollupRows: Number(rollups.rows[0]!.rows),
      bytesPerRollupRow: Math.round(Number(rollups.rows[0]!.bytes) / Math.max(1, Number(rollups.rows[0]!.rows))),
    };
  });
}

/** GB (10^9 bytes) a month of raw messages for a fleet reporting once per interval, at `bytesPerMessage`. */
export function gigabytesPerMonth(things: number, intervalS: number, bytesPerMessage: number): number {
  return (things * (secondsPerMonth / intervalS) * bytesPerMessage) / 1e9;
}

export function formatSizing(results: readonly SizingResult[]): string {
  const lines = [
    '| store | messages measured | bytes/message (messages table + key) | average body bytes | whole store bytes/message | rolled-up hours | bytes/rolled-up hour |',
    '|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.store} | ${r.messages.toLocaleString('en-US')} | ${r.bytesPerMessage} | ${r.averageBodyBytes} | ${r.storeBytesPerMessage} | ${r.rollupRows.toLocaleString('en-US')} | ${r.bytesPerRollupRow} |`,
    ),
    '',
    `| things | interval | messages/month | ${results.map((r) => `${r.store} GB/month`).join(' | ')} |`,
    `|---|---|---|${results.map(() => '---').join('|')}|`,
  ];
  for (const things of fleetSizes)
    for (const [label, seconds] of reportIntervals) {
      const perMonth = things * (secondsPerMonth / seconds);
      const sizes = results.map((r) => formatGb(gigabytesPerMonth(things, seconds, r.bytesPerMessage)));
      lines.push(
        `| ${things.toLocaleString('en-US')} | ${label} | ${Math.round(perMonth).toLocaleString('en-US')} | ${sizes.join(' | ')} |`,
      );
    }
  return lines.join('\n');
}

const formatGb = (gb: number) => (gb >= 100 ? gb.toFixed(0) : gb >= 10 ? gb.toFixed(1) : gb.toFixed(2));

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(formatSizing(await measureSizing()));
}
