import type { Kysely } from 'kysely';
import type { Schema } from './schema.js';
import type { SqliteDirectReads } from './sqlite-direct-reads.js';

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

export function messagesStore(db: Kysely<Schema>, directReads: SqliteDirectReads | undefined) {
  return {
    /**
     * Newest first, each as the JSON text served to clients (the body is stored with `deploymentGroupId`, see
     * migration 0008). Reads the primary key range of one TUID backwards; the id and event filters are applied to
     * the rows of that range.
     */
    async listJson(query: MessageQuery): Promise<string[]> {
      return (directReads && listDirect(directReads, query)) ?? listWithQueryBuilder(db, query);
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
  let select = db.selectFrom('messages').select('body').where('tuid', '=', query.tuid);
  if (query.from !== undefined) select = select.where('tsm_ts', '>=', query.from);
  if (query.to !== undefined) select = select.where('tsm_ts', '<=', query.to);
  if (query.messageIds?.length) select = select.where('tsm_id', 'in', [...query.messageIds]);
  if (query.eventIds?.length) select = select.where('tsm_ev', 'in', [...query.eventIds]);
  const rows = await select.orderBy('tsm_ts', 'desc').orderBy('tsm_id', 'desc').orderBy('fingerprint', 'desc').limit(query.limit).execute();
  return rows.map((row) => row.body);
}

/**
 * The same list as a SQLite prepared statement returning the body column alone: one statement per combination
 * of filters (sixteen at most; id lists travel as one JSON array parameter, so their length makes no new text).
 * Undefined while a transaction is open on the connection (see SqliteDirectReads).
 */
function listDirect(directReads: SqliteDirectReads, query: MessageQuery): string[] | undefined {
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
  const text = `select body from messages where ${conditions.join(' and ')} order by tsm_ts desc, tsm_id desc, fingerprint desc limit ?`;
  return directReads.statement<string>(text, 'firstColumn')?.all(...parameters, query.limit);
}
