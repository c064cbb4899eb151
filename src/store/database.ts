import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { SqliteBinding } from './sqlite-binding.js';
import { CompiledQuery, Kysely, SqliteDialect, sql, type Driver } from 'kysely';
import pg from 'pg';
import { CurrentSchemaPostgresDialect } from './current-schema-introspector.js';
import { SqliteReaderPool } from './sqlite-reader-pool.js';
import type { Schema } from './schema.js';
import { prepareSqliteStoreFile } from './private-files.js';
import { tuneSqliteConnection } from './sqlite-pragmas.js';

export type Dialect = 'sqlite' | 'postgres';

/** An open store: the query builder, which dialect it speaks, and its lifecycle. */
export interface Database {
  readonly db: Kysely<Schema>;
  readonly dialect: Dialect;
  /**
   * The driver underneath, for the few hot paths (uplink batches) where prepared statements or array parameters
   * beat the query builder. Only store modules use it.
   */
  readonly driver:
    | {
        dialect: 'sqlite';
        connection: SqliteDatabase.Database;
        /** The reader threads heavy reads run on (sqlite-reader-pool.ts); none for an in-memory store, or when set to 0. */
        readers: SqliteReaderPool | undefined;
      }
    | {
        dialect: 'postgres';
        pool: pg.Pool;
        /**
         * A client of its own, not connected yet, outside the pool: for a read that holds its connection longer than
         * a statement may take (an export's COPY). Same server and settings as the pool's, without the statement timeout.
         */
        dedicatedClient(): pg.Client;
      };
  /** Throws when the store does not answer; used by readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

// PostgreSQL returns bigint (int8) and numeric as strings to protect precision; our bigints are millisecond
// timestamps and counts far below 2^53, so numbers are exact and keep the JSON integers integers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

export interface OpenOptions {
  /**
   * PostgreSQL: the longest a statement may take, on the server (statement_timeout) and on the client (a stalled
   * server or network), before it fails as unavailable (503). Unset: no bound (migrations, the CLI).
   * SQLite runs in-process; its only wait is for the write lock, bounded by busy_timeout (5 s).
   */
  queryTimeoutMs?: number;
  /** SQLite: how many reader threads heavy reads may use at once (SQLITE_READER_THREADS, default 2; 0: none). */
  readerThreads?: number;
}

/** Opens the store named by a `file:` or `postgres://` URL (already validated by the configuration). */
export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  return url.startsWith('file:') ? openSqlite(url.slice('file:'.length), options.readerThreads ?? 2) : openPostgres(url, options);
}

function openSqlite(path: string, readerThreads: number): Database {
  const inMemory = path === ':memory:';
  if (!inMemory) {
    mkdirSync(dirname(resolve(path)), { recursive: true });
    prepareSqliteStoreFile(path);
  }
  const connection = new SqliteBinding(path);
  tuneSqliteConnection(connection, 'main');
  const db = new Kysely<Schema>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(connection) }) });
  // An in-memory store cannot be opened a second time: its reads stay on this connection. Threads start on first use.
  const readers = inMemory || readerThreads === 0 ? undefined : new SqliteReaderPool(connection.name, readerThreads);
  return {
    db,
    dialect: 'sqlite',
    driver: { dialect: 'sqlite', connection, readers },
    async ping() {
      connection.prepare('select 1').get();
    },
    async close() {
      await readers?.close();
      await db.destroy();
    },
  };
}

// Distinct SQL texts kept prepared; queries with `in (...)` lists of varying length make new texts, so bounded.
const statementCacheSize = 500;

/**
 * The connection as Kysely sees it, with `prepare` remembering statements by SQL text. Kysely prepares every query
 * anew, and preparing costs about twice running a prepared statement: on a hot read (`GET /things/{tuid}`) that
 * was a tenth of the server's CPU. Statements run one at a time on this connection (Kysely's mutex), so sharing
 * one per text is safe.
 */
function withStatementCache(connection: SqliteDatabase.Database): SqliteDatabase.Database {
  const statements = new Map<string, SqliteDatabase.Statement>();
  const prepare = (sqlText: string) => {
    let statement = statements.get(sqlText);
    if (!statement) {
      statement = connection.prepare(sqlText);
      if (statements.size >= statementCacheSize) statements.delete(statements.keys().next().value!);
      statements.set(sqlText, statement);
    }
    return statement;
  };
  return new Proxy(connection, {
    get(target, property) {
      if (property === 'prepare') return prepare;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Kysely's SQLite transactions start with `begin immediate` (taking the write lock up front) instead of `begin`.
 * The uplink writer commits from its own connection in a worker thread; a deferred transaction that read first and
 * then wrote would fail with SQLITE_BUSY (snapshot out of date, no waiting) whenever that writer committed in
 * between. Taking the lock first makes it wait (busy_timeout) for the writer's commit instead.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}

function openPostgres(url: string, options: OpenOptions): Database {
  // Outages fail fast and heal by themselves: a connection that cannot be made in 5 s fails the request (503, see
  // isStoreUnavailable) instead of hanging, and so does a query unanswered within the timeout (a stalled server);
  // the server gives up the statement at the same time, so the connection is usable again. TCP keep-alive notices a
  // server that vanished without closing its sockets; idle connections are dropped after 10 s, so few stale ones
  // remain after a restart.
  const timeout = options.queryTimeoutMs;
  const connection = { connectionString: url, connectionTimeoutMillis: 5000, keepAlive: true, keepAliveInitialDelayMillis: 10_000 };
  const pool = new pg.Pool({
    ...connection,
    max: 10,
    idleTimeoutMillis: 10_000,
    ...(timeout === undefined ? {} : { query_timeout: timeout, statement_timeout: timeout }),
  });
  // An idle client that loses its server (restart, network) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor a checked-out one (a transaction, an ingest batch): node-postgres emits 'error' on it besides failing its
  // query, and an unheard 'error' event would crash the process. The query's rejection reports the failure, and
  // the pool discards the broken client on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Schema>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    driver: { dialect: 'postgres', pool, dedicatedClient: () => new pg.Client(connection) },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}
