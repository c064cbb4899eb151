import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Schema } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

/** An open store: the query builder, which dialect it speaks, and its lifecycle. */
export interface Database {
  readonly db: Kysely<Schema>;
  readonly dialect: Dialect;
  /**
   * The driver underneath, for the few hot paths (uplink batches) where prepared statements or array parameters
   * beat the query builder. Only store modules use it.
   */
  readonly driver: { dialect: 'sqlite'; connection: SqliteDatabase.Database } | { dialect: 'postgres'; pool: pg.Pool };
  /** Throws when the store does not answer; used by readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

// PostgreSQL returns bigint (int8) and numeric as strings to protect precision; our bigints are millisecond
// timestamps and counts far below 2^53, so numbers are exact and keep the JSON integers integers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

/** Opens the store named by a `file:` or `postgres://` URL (already validated by the configuration). */
export async function openDatabase(url: string): Promise<Database> {
  return url.startsWith('file:') ? openSqlite(url.slice('file:'.length)) : openPostgres(url);
}

function openSqlite(path: string): Database {
  const inMemory = path === ':memory:';
  if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
  const connection = new SqliteDatabase(path);
  // WAL lets readers run beside the single writer; synchronous=NORMAL in WAL mode still survives a process crash
  // (only a power loss can drop the last transactions), which is the durability the platform promises.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: connection }) });
  return {
    db,
    dialect: 'sqlite',
    driver: { dialect: 'sqlite', connection },
    async ping() {
      connection.prepare('select 1').get();
    },
    async close() {
      await db.destroy();
    },
  };
}

function openPostgres(url: string): Database {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
  // An idle client that loses its server (restart, network) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    driver: { dialect: 'postgres', pool },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}
