import { CompiledQuery, sql, type Kysely } from 'kysely';
import { entryHash } from '../domain/audit/audit-chain.js';
import { postgresAppend, sqliteClaimAppender } from './batch-writer/claim-audit.js';
import type { AuditEntry, AuditHead, NewAuditEntry } from '../domain/audit/audit-types.js';
import type { Dialect } from './database.js';
import type { SqliteDirectReads } from './sqlite-direct-reads.js';
import type { AuditEntriesTable, Schema } from './schema.js';

/** The SQLite writer's connection (better-sqlite3), for the prepared append. */
type SqliteConnection = Parameters<typeof sqliteClaimAppender>[0] & { readonly inTransaction: boolean };

/** What `GET /audit` filters on; `before`: entries with a smaller id (the cursor). */
export interface AuditQuery {
  organizationId: string;
  from?: number;
  to?: number;
  actor?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  before?: number;
  limit: number;
}

/**
 * The audit log (SPEC 14). `append` numbers and chains an entry under the organization's head: on PostgreSQL the head
 * row is locked (`for update`) for the rest of the caller's transaction, so appends of one organization queue while
 * other organizations' go on; SQLite has one writer (`begin immediate`). Call it inside the transaction of the change
 * (Store.transaction), so the change and its entry commit together.
 */
export function auditStore(
  db: Kysely<Schema>,
  dialect: Dialect,
  sqlite?: { connection: SqliteConnection; directReads: SqliteDirectReads },
  atCommit: (statement: string) => boolean = () => false,
) {
  const sqliteConnection = sqlite?.connection;
  const directReads = sqlite?.directReads;
  const sqliteAppend = sqliteConnection && sqliteClaimAppender(sqliteConnection);
  const insertHead = (organizationId: string) =>
    db
      .insertInto('audit_heads')
      .values({ organization_id: organizationId, last_id: 0, last_hash: '', anchor_id: 0, anchor_hash: '' })
      .onConflict((oc) => oc.column('organization_id').doNothing())
      .execute();
  /** SQLite outside a transaction of its own (no caller does that; kept whole for safety). */
  async function appendWithQueryBuilder(entry: NewAuditEntry): Promise<AuditEntry> {
    await insertHead(entry.organizationId);
    const current = (await head(entry.organizationId, true))!;
    const numbered = { ...entry, id: current.lastId + 1 };
    const hash = entryHash(current.lastHash, numbered);
    await db
      .insertInto('audit_entries')
      .values(toRow({ ...numbered, hash }))
      .execute();
    await db
      .updateTable('audit_heads')
      .set({ last_id: numbered.id, last_hash: hash })
      .where('organization_id', '=', entry.organizationId)
      .execute();
    return { ...numbered, hash };
  }
  async function head(organizationId: string, lock: boolean): Promise<AuditHead | undefined> {
    let query = db.selectFrom('audit_heads').selectAll().where('organization_id', '=', organizationId);
    if (lock && dialect === 'postgres') query = query.forUpdate();
    const row = await query.executeTakeFirst();
    return row && { lastId: row.last_id, lastHash: row.last_hash, anchorId: row.anchor_id, anchorHash: row.anchor_hash };
  }
  return {
    /**
     * Numbers and chains `entry` under the organization's head, in the caller's transaction. The cost is the
     * mutation's (SPEC 14: at most 10 %): on PostgreSQL one statement (lock the head, insert the entry hashed by the
     * server, move the head), sent with the transaction's COMMIT, so it costs no round trip of its own and holds the
     * head only while committing; on SQLite prepared statements on the writer's connection, which the caller's
     * transaction holds.
     */
    async append(entry: NewAuditEntry): Promise<void> {
      if (sqliteAppend && sqliteConnection?.inTransaction) {
        sqliteAppend(entry);
        return;
      }
      if (dialect === 'postgres') {
        if (atCommit(postgresAppend.atCommit(entry))) return;
        if (await appendPostgres(db, entry)) return;
        // The organization's first entry: its head row is made once, then only locked and moved.
        await insertHead(entry.organizationId);
        await appendPostgres(db, entry);
        return;
      }
      await appendWithQueryBuilder(entry);
    },

    head: (organizationId: string) => head(organizationId, false),

    /** Newest first, `limit` of them. */
    async list(query: AuditQuery): Promise<AuditEntry[]> {
      let q = db.selectFrom('audit_entries').selectAll().where('organization_id', '=', query.organizationId);
      if (query.from !== undefined) q = q.where('at', '>=', query.from);
      if (query.to !== undefined) q = q.where('at', '<=', query.to);
      if (query.actor !== undefined) {
        const actor = query.actor;
        q = q.where((eb) => eb.or([eb('actor_id', '=', actor), eb('actor_label', '=', actor)]));
      }
      if (query.action !== undefined) q = q.where('action', '=', query.action);
      if (query.targetType !== undefined) q = q.where('target_type', '=', query.targetType);
      if (query.targetId !== undefined) q = q.where('target_id', '=', query.targetId);
      if (query.before !== undefined) q = q.where('id', '<', query.before);
      const rows = await q.orderBy('id', 'desc').limit(query.limit).execute();
      return rows.map(fromRow);
    },

    /**
     * An organization's entries in id order, a page at a time (verification, export), the next page read while the
     * caller works on this one. Pages are ranges of ids between the smallest and the largest (ids are dense), so
     * each reads at most `pageSize` rows whatever plan the database picks: an open-ended `id > last ... limit`
     * sorted every remaining row per page on PostgreSQL before its statistics knew the table (47 s for a million).
     * On SQLite the pages are prepared statements with rows as arrays whenever no transaction holds the connection.
     */
    async *pages(organizationId: string, pageSize = 10_000): AsyncGenerator<AuditEntry[]> {
      const bounds = await db
        .selectFrom('audit_entries')
        .select((eb) => [eb.fn.min('id').as('first'), eb.fn.max('id').as('last')])
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      if (bounds?.first === null || bounds?.first === undefined) return;
      const [first, last] = [Number(bounds.first), Number(bounds.last)];
      const page = (from: number): Promise<AuditEntry[]> => {
        const to = from + pageSize - 1;
        const direct = directReads?.statement<unknown[]>(pageSql, 'arrays')?.all(organizationId, from, to);
        if (direct) return Promise.resolve(direct.map(fromArray));
        return db
          .selectFrom('audit_entries')
          .selectAll()
          .where('organization_id', '=', organizationId)
          .where('id', '>=', from)
          .where('id', '<=', to)
          .orderBy('id', 'asc')
          .execute()
          .then((rows) => rows.map(fromRow));
      };
      for (let from = first, next = page(from); from <= last;) {
        const entries = await next;
        from += pageSize;
        if (from <= last) {
          next = page(from);
          // A read ahead whose page is never asked for (the consumer stopped) must not fail unheard.
          next.catch(() => undefined);
        }
        if (entries.length > 0) yield entries;
      }
    },

    /** Every organization with a chain. */
    async organizations(): Promise<string[]> {
      const rows = await db.selectFrom('audit_heads').select('organization_id').orderBy('organization_id').execute();
      return rows.map((r) => r.organization_id);
    },

    /**
     * Deletes an organization's entries older than `before` (ms) and moves its anchor to the last one deleted, so
     * the rest still verifies. Returns how many went. Run inside a transaction (Store.transaction).
     */
    async expire(organizationId: string, before: number): Promise<number> {
      const current = await head(organizationId, true);
      if (!current) return 0;
      const last = await db
        .selectFrom('audit_entries')
        .select(['id', 'hash'])
        .where('organization_id', '=', organizationId)
        .where('at', '<', before)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!last) return 0;
      const deleted = await db
        .deleteFrom('audit_entries')
        .where('organization_id', '=', organizationId)
        .where('id', '<=', last.id)
        .executeTakeFirst();
      await db
        .updateTable('audit_heads')
        .set({ anchor_id: last.id, anchor_hash: last.hash })
        .where('organization_id', '=', organizationId)
        .execute();
      return Number(deleted.numDeletedRows);
    },

    /** Tests and benchmarks: the raw row count of an organization. */
    async count(organizationId: string): Promise<number> {
      const row = await db
        .selectFrom('audit_entries')
        .select(sql<number>`count(*)`.as('n'))
        .where('organization_id', '=', organizationId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

/** PostgreSQL's append in one round trip (`postgresAppend`); false (nothing written) when the head does not exist yet. */
async function appendPostgres(db: Kysely<Schema>, entry: NewAuditEntry): Promise<boolean> {
  const result = await db.executeQuery(CompiledQuery.raw(postgresAppend.text, postgresAppend.values(entry)));
  return result.rows.length > 0;
}

function toRow(entry: AuditEntry): AuditEntriesTable {
  return {
    organization_id: entry.organizationId,
    id: entry.id,
    at: entry.at,
    actor_type: entry.actor.type,
    actor_id: entry.actor.id,
    actor_label: entry.actor.label,
    via: entry.via,
    request_id: entry.requestId,
    address: entry.address,
    action: entry.action,
    target_type: entry.target.type,
    target_id: entry.target.id,
    changes: entry.changes === null ? null : JSON.stringify(entry.changes),
    outcome: entry.outcome,
    hash: entry.hash,
  };
}

const columns = [
  'organization_id',
  'id',
  'at',
  'actor_type',
  'actor_id',
  'actor_label',
  'via',
  'request_id',
  'address',
  'action',
  'target_type',
  'target_id',
  'changes',
  'outcome',
  'hash',
] as const satisfies readonly (keyof AuditEntriesTable)[];
const pageSql = `select ${columns.join(', ')} from audit_entries where organization_id = ? and id between ? and ? order by id`;

/** A row read as an array of `columns`. */
function fromArray(v: unknown[]): AuditEntry {
  const changes = v[12] as string | null;
  return {
    id: Number(v[1]),
    at: Number(v[2]),
    organizationId: v[0] as string,
    actor: { type: v[3] as AuditEntry['actor']['type'], id: v[4] as string | null, label: v[5] as string | null },
    via: v[6] as AuditEntry['via'],
    requestId: v[7] as string | null,
    address: v[8] as string | null,
    action: v[9] as string,
    target: { type: v[10] as string, id: v[11] as string | null },
    changes: changes === null ? null : (JSON.parse(changes) as AuditEntry['changes']),
    outcome: v[13] as AuditEntry['outcome'],
    hash: v[14] as string,
  };
}

function fromRow(row: AuditEntriesTable): AuditEntry {
  return {
    id: Number(row.id),
    at: Number(row.at),
    organizationId: row.organization_id,
    actor: { type: row.actor_type as AuditEntry['actor']['type'], id: row.actor_id, label: row.actor_label },
    via: row.via as AuditEntry['via'],
    requestId: row.request_id,
    address: row.address,
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    changes: row.changes === null ? null : (JSON.parse(row.changes) as AuditEntry['changes']),
    outcome: row.outcome as AuditEntry['outcome'],
    hash: row.hash,
  };
}
