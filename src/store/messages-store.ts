import type { ExpressionBuilder, Kysely } from 'kysely';
import type { ExportBodies, ExportQuery } from '../domain/messages/export-types.js';
import type { Schema } from './schema.js';
import type { SqliteDirectReads } from './sqlite-direct-reads.js';
import type { SqliteReaderPool } from './sqlite-reader-pool.js';
import type { ReaderStatement } from './sqlite-reader-protocol.js';

export type MessagesStore = ReturnType<typeof messagesStore>;

/** Filters of a thing's message list (SPEC section 3): ids and events as sets, `from`/`to` inclusive seconds. */
export interface MessageQuery {
  tuid: string;
  messageIds?: readonly number[];
  eventIds?: readonly number[];
  from?: number;
  to?: number;
  limit: number;
}

/** Rows of one export page (SQLite): one range read of the primary key, one batch of bodies. */
const exportPageSize = 1000;

/**
 * SQLite: the longest message page read on the main connection when there are reader threads; a longer one goes to
 * a reader. Measured (bench/store/reader-hop.ts, docs/decisions.md): a page of 20 costs about 0.1 ms on the main
 * connection and the hop to a thread adds several times that, while a page of 1,000 holds the loop for milliseconds.
 */
export const messagePageOnMainThread = 100;

/**
 * `directReads` on SQLite, and `readers` where it has reader threads (long pages and export pages run there);
 * `exportOnPostgres` the PostgreSQL export (postgres-message-export.ts), which reads on connections of its own.
 * Without it, exports read keyset pages through `db`.
 */
export function messagesStore(
  db: Kysely<Schema>,
  directReads: SqliteDirectReads | undefined,
  exportOnPostgres?: (query: ExportQuery) => ExportBodies,
  readers?: SqliteReaderPool,
) {
  return {
    /**
     * Newest first, each as the JSON text served to clients (the body is stored with `deploymentGroupId`, see
     * migration 0008). Reads the primary key range of one TUID backwards; the id and event filters are applied to
     * the rows of that range.
     */
    async listJson(query: MessageQuery): Promise<string[]> {
      if (readers && query.limit > messagePageOnMainThread) return (await readers.run<string[][]>(statementsOf(listStatement(query))))[0]!;
      return (directReads && listDirect(directReads, query)) ?? listWithQueryBuilder(db, query);
    },
    /**
     * The bodies of an export (see ExportBodies), read only as the consumer pulls. PostgreSQL: a COPY per thing on a
     * connection of the export's own (a limited number at once). SQLite: keyset pages, each a fresh range read of
     * the primary key, so nothing is held open between pages, whatever the export's length.
     */
    exportBodies(query: ExportQuery): ExportBodies {
      return exportOnPostgres ? exportOnPostgres(query) : exportPages(db, directReads, readers, query);
    },
    async count(tuid: string): Promise<number> {
      const row = await db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tuid', '=', tuid)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

async function listWithQueryBuilder(db: Kysely<Schema>, query: MessageQuery): Promise<string[]> {
  const rows = await db
    .selectFrom('messages')
    .select('body')
    .where((eb) => builderFilters(eb, query))
    .orderBy('tsm_ts', 'desc')
    .orderBy('tsm_id', 'desc')
    .orderBy('fingerprint', 'desc')
    .limit(query.limit)
    .execute();
  return rows.map((row) => row.body);
}

/**
 * The same list as a SQLite prepared statement returning the body column alone: one statement per combination
 * of filters (sixteen at most; id lists travel as one JSON array parameter, so their length makes no new text).
 * Undefined while a transaction is open on the connection (see SqliteDirectReads).
 */
function listDirect(directReads: SqliteDirectReads, query: MessageQuery): string[] | undefined {
  const { text, parameters } = listStatement(query);
  return directReads.statement<string>(text, 'firstColumn')?.all(...parameters);
}

/** The list as one SQLite statement, its bodies as the first column (on the main connection or a reader thread). */
function listStatement(query: MessageQuery): ReaderStatement {
  const { conditions, parameters } = directFilters(query);
  const text = `select body from messages where ${conditions.join(' and ')} order by tsm_ts desc, tsm_id desc, fingerprint desc limit ?`;
  return { text, parameters: [...parameters, query.limit], shape: 'firstColumn' };
}

/** A reader thread's job of one statement. */
function statementsOf(statement: ReaderStatement) {
  return { kind: 'statements', statements: [statement] } as const;
}

type FilterQuery = Pick<MessageQuery, 'tuid' | 'from' | 'to' | 'messageIds' | 'eventIds'>;

/** A thing's messages with the list's filters, for the query builder (the list and the export alike). */
function builderFilters(eb: ExpressionBuilder<Schema, 'messages'>, query: FilterQuery) {
  const conditions = [eb('tuid', '=', query.tuid)];
  if (query.from !== undefined) conditions.push(eb('tsm_ts', '>=', query.from));
  if (query.to !== undefined) conditions.push(eb('tsm_ts', '<=', query.to));
  if (query.messageIds?.length) conditions.push(eb('tsm_id', 'in', [...query.messageIds]));
  if (query.eventIds?.length) conditions.push(eb('tsm_ev', 'in', [...query.eventIds]));
  return eb.and(conditions);
}

/** A message's place in the primary key (tuid aside): what the next page starts after. */
interface ExportRowKey {
  tsmTs: number;
  tsmId: number;
  fingerprint: string;
}

/** A row of an export page: its key and the message as served. */
interface ExportRow extends ExportRowKey {
  body: string;
}

/** One page of a thing's messages after a key (none: the first page), at most `limit`. */
type ExportPageQuery = Omit<ExportQuery, 'tuids'> & { tuid: string; after?: ExportRowKey; limit: number };

async function* exportPages(
  db: Kysely<Schema>,
  directReads: SqliteDirectReads | undefined,
  readers: SqliteReaderPool | undefined,
  query: ExportQuery,
): ExportBodies {
  const { tuids, ...filter } = query;
  for (const tuid of tuids) {
    let after: ExportRowKey | undefined;
    for (;;) {
      const page = { ...filter, tuid, after, limit: exportPageSize };
      const rows = readers
        ? (await readers.run<ExportRow[][]>(statementsOf(exportPageStatement(page))))[0]!
        : ((directReads && exportPageDirect(directReads, page)) ?? (await exportPageWithQueryBuilder(db, page)));
      if (rows.length > 0) yield rows.map((row) => row.body);
      if (rows.length < exportPageSize) break;
      const last = rows[rows.length - 1]!;
      after = { tsmTs: last.tsmTs, tsmId: last.tsmId, fingerprint: last.fingerprint };
    }
  }
}

async function exportPageWithQueryBuilder(db: Kysely<Schema>, query: ExportPageQuery): Promise<ExportRow[]> {
  let select = db
    .selectFrom('messages')
    .select(['tsm_ts', 'tsm_id', 'fingerprint', 'body'])
    .where((eb) => builderFilters(eb, query));
  const after = query.after;
  if (after) {
    // The row value comparison is what the primary key orders by; the plain `tsm_ts >=` beside it bounds the range.
    select = select
      .where('tsm_ts', '>=', after.tsmTs)
      .where((eb) => eb(eb.refTuple('tsm_ts', 'tsm_id', 'fingerprint'), '>', eb.tuple(after.tsmTs, after.tsmId, after.fingerprint)));
  }
  const rows = await select.orderBy('tsm_ts').orderBy('tsm_id').orderBy('fingerprint').limit(query.limit).execute();
  return rows.map((row) => ({ tsmTs: row.tsm_ts, tsmId: row.tsm_id, fingerprint: row.fingerprint, body: row.body }));
}

/** A thing's messages with the list's filters, as SQL conditions with their parameters (both direct reads). */
function directFilters(query: FilterQuery): {
  conditions: string[];
  parameters: unknown[];
} {
  const conditions = ['tuid = ?'];
  const parameters: unknown[] = [query.tuid];
  if (query.from !== undefined) {
    conditions.push('tsm_ts >= ?');
    parameters.push(query.from);
  }
  if (query.to !== undefined) {
    conditions.push('tsm_ts <= ?');
    parameters.push(query.to);
  }
  if (query.messageIds?.length) {
    conditions.push('tsm_id in (select value from json_each(?))');
    parameters.push(JSON.stringify(query.messageIds));
  }
  if (query.eventIds?.length) {
    conditions.push('tsm_ev in (select value from json_each(?))');
    parameters.push(JSON.stringify(query.eventIds));
  }
  return { conditions, parameters };
}

/** The export page as a SQLite prepared statement (see listDirect); undefined while a transaction is open. */
function exportPageDirect(directReads: SqliteDirectReads, query: ExportPageQuery): ExportRow[] | undefined {
  const { text, parameters } = exportPageStatement(query);
  return directReads.statement<ExportRow>(text, 'rows')?.all(...parameters);
}

/** The export page as one SQLite statement, rows as ExportRow (on the main connection or a reader thread). */
function exportPageStatement(query: ExportPageQuery): ReaderStatement {
  const { conditions, parameters } = directFilters(query);
  if (query.after) {
    conditions.push('tsm_ts >= ?', '(tsm_ts, tsm_id, fingerprint) > (?, ?, ?)');
    parameters.push(query.after.tsmTs, query.after.tsmTs, query.after.tsmId, query.after.fingerprint);
  }
  const text =
    `select tsm_ts as tsmTs, tsm_id as tsmId, fingerprint, body from messages where ${conditions.join(' and ')} ` +
    'order by tsm_ts, tsm_id, fingerprint limit ?';
  return { text, parameters: [...parameters, query.limit], shape: 'rows' };
}
