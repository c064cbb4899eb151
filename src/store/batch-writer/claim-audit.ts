import pg from 'pg';
import { canonicalAroundId, entryHash } from '../../domain/audit/audit-chain.js';
import type { AuditEntry } from '../../domain/audit/audit-types.js';

/**
 * The audit entry of a thing claimed by its first uplink (SPEC 14: `via: mqtt`), written by the ingest writers in
 * the batch's own transaction, only for things the batch claims: a batch of known things costs nothing more.
 * Chained as Store.audit.append chains (audit-chain.ts); PostgreSQL locks the organization's head row.
 */
export function claimEntry(organizationId: string, tuid: string, gatewayTuid: string | null, at: number): Omit<AuditEntry, 'id' | 'hash'> {
  return {
    at,
    organizationId,
    actor: { type: 'system', id: 'uplink', label: gatewayTuid === null ? 'uplink' : `uplink via gateway ${gatewayTuid}` },
    via: 'mqtt',
    requestId: null,
    address: null,
    action: 'thing.claim',
    target: { type: 'thing', id: tuid },
    changes: { organizationId: { from: null, to: organizationId }, installationStatus: { from: null, to: 'new' } },
    outcome: 'success',
  };
}

const headInsert = `insert into audit_heads (organization_id, last_id, last_hash, anchor_id, anchor_hash) values ($1, 0, '', 0, '') on conflict do nothing`;
const entryInsert = `insert into audit_entries (organization_id, id, at, actor_type, actor_id, actor_label, via, request_id, address, action, target_type, target_id, changes, outcome, hash)
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`;

function rowOf(entry: AuditEntry): unknown[] {
  return [
    entry.organizationId,
    entry.id,
    entry.at,
    entry.actor.type,
    entry.actor.id,
    entry.actor.label,
    entry.via,
    entry.requestId,
    entry.address,
    entry.action,
    entry.target.type,
    entry.target.id,
    entry.changes === null ? null : JSON.stringify(entry.changes),
    entry.outcome,
    entry.hash,
  ];
}

/**
 * PostgreSQL's append (Store.audit.append's and the ingest writers'): one call of `audit_append` (migration 0029),
 * which locks the organization's head, numbers the entry after it, hashes it with the canonical JSON around the id
 * (audit-chain.ts) and moves the head. No row when the organization has no head yet: `headInsert`, then again.
 */
export const postgresAppend = {
  text: 'select entry_id, entry_hash from audit_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)',
  headInsert,
  values(entry: Omit<AuditEntry, 'id' | 'hash'>): unknown[] {
    const [beforeId, afterId] = canonicalAroundId(entry);
    const row = rowOf({ ...entry, id: 0, hash: '' });
    return [...row.slice(0, 1), ...row.slice(2, 14), beforeId, afterId];
  },
  /**
   * The same as complete SQL to send with a COMMIT (Store.transaction's `atCommit`, which takes no parameters): the
   * head made if missing, then the call, its values as escaped literals.
   */
  atCommit(entry: Omit<AuditEntry, 'id' | 'hash'>): string {
    const literals = postgresAppend.values(entry).map(sqlLiteral).join(', ');
    return `${headInsert.replace('$1', sqlLiteral(entry.organizationId))};\nselect audit_append(${literals})`;
  },
};

/** A value as a PostgreSQL literal: text escaped by node-postgres's escapeLiteral, integers as digits, null. */
function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string') return pg.escapeLiteral(value);
  throw new TypeError(`no SQL literal for ${typeof value}`);
}

/** Appends claim entries on PostgreSQL inside the batch's transaction (`query` runs on its client). */
export async function appendClaimsPostgres(
  query: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>,
  entries: readonly Omit<AuditEntry, 'id' | 'hash'>[],
): Promise<void> {
  for (const entry of entries) {
    const values = postgresAppend.values(entry);
    if ((await query(postgresAppend.text, values)).rows.length > 0) continue;
    await query(headInsert, [entry.organizationId]);
    await query(postgresAppend.text, values);
  }
}

/**
 * The same on SQLite, synchronous, inside the writer's transaction (also Store.audit.append's, inside the change's:
 * prepared once, no query builder). Returns the entry as written.
 */
export function sqliteClaimAppender(connection: {
  prepare(sql: string): { run(...values: unknown[]): unknown; get(...values: unknown[]): unknown };
}): (entry: Omit<AuditEntry, 'id' | 'hash'>) => AuditEntry {
  const positional = (sql: string) => sql.replace(/\$\d+/g, '?');
  const insertHead = connection.prepare(positional(headInsert));
  const selectHead = connection.prepare('select last_id, last_hash from audit_heads where organization_id = ?');
  const insertEntry = connection.prepare(positional(entryInsert));
  const updateHead = connection.prepare('update audit_heads set last_id = ?, last_hash = ? where organization_id = ?');
  const headOf = (organizationId: string) => selectHead.get(organizationId) as { last_id: number; last_hash: string } | undefined;
  return (entry) => {
    // The head is made once, by the organization's first entry.
    let head = headOf(entry.organizationId);
    if (!head) {
      insertHead.run(entry.organizationId);
      head = headOf(entry.organizationId)!;
    }
    const numbered = { ...entry, id: Number(head.last_id) + 1 };
    const hash = entryHash(head.last_hash, numbered);
    insertEntry.run(...rowOf({ ...numbered, hash }));
    updateHead.run(numbered.id, hash, entry.organizationId);
    return { ...numbered, hash };
  };
}
