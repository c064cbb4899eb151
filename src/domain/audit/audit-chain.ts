import * as crypto from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import type { AuditEntry, AuditHead, AuditInvalidReason, AuditVerification } from './audit-types.js';

// A CommonJS module whose declaration says `export default`: its default import is the function itself.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/**
 * The canonical form of an entry (docs/audit.md): the entry as the API shows it, without `hash`, field names in
 * snake_case, `at` as ISO 8601 UTC with milliseconds, `id` a JSON number, absent values null; serialized by
 * RFC 8785 (JSON Canonicalization Scheme).
 */
export function canonicalEntry(entry: Omit<AuditEntry, 'hash'>): string {
  const [beforeId, afterId] = canonicalAroundId(entry);
  return beforeId + JSON.stringify(entry.id) + afterId;
}

/**
 * The canonical JSON of an entry without its id, as the text before and after the id's number: the store numbers
 * an entry under its organization's locked head, and PostgreSQL hashes `previous hash || before || id || after` in
 * the appending statement itself (one round trip, audit-store.ts).
 */
export function canonicalAroundId(entry: Omit<AuditEntry, 'hash' | 'id'>): [string, string] {
  // RFC 8785 for this fixed shape, written out: members in UTF-16 code unit order, strings and numbers as
  // ECMAScript's JSON.stringify writes them (which is what RFC 8785 specifies). `canonicalize` (the general
  // implementation) gives the same text (test/audit/audit-canonical.test.ts) at a fraction of the speed.
  const s = JSON.stringify;
  return [
    `{"action":${s(entry.action)},"actor":{"id":${s(entry.actor.id)},"label":${s(entry.actor.label)},"type":${s(entry.actor.type)}}` +
      `,"address":${s(entry.address)},"at":${s(new Date(entry.at).toISOString())},"changes":${changesJson(entry.changes)},"id":`,
    `,"organization_id":${s(entry.organizationId)},"outcome":${s(entry.outcome)},"request_id":${s(entry.requestId)}` +
      `,"target":{"id":${s(entry.target.id)},"type":${s(entry.target.type)}},"via":${s(entry.via)}}`,
  ];
}

function changesJson(changes: AuditEntry['changes']): string {
  if (changes === null) return 'null';
  // Array.prototype.sort compares UTF-16 code units, RFC 8785's order.
  const fields = Object.keys(changes).sort();
  return `{${fields.map((field) => `${JSON.stringify(field)}:{"from":${JSON.stringify(changes[field]!.from)},"to":${JSON.stringify(changes[field]!.to)}}`).join(',')}}`;
}

/** The general RFC 8785 serializer, for checking `canonicalEntry` against it. */
export function canonicalEntryByLibrary(entry: Omit<AuditEntry, 'hash'>): string {
  return canonicalize({
    id: entry.id,
    at: new Date(entry.at).toISOString(),
    organization_id: entry.organizationId,
    actor: { type: entry.actor.type, id: entry.actor.id, label: entry.actor.label },
    via: entry.via,
    request_id: entry.requestId,
    address: entry.address,
    action: entry.action,
    target: { type: entry.target.type, id: entry.target.id },
    changes: entry.changes,
    outcome: entry.outcome,
  }) as string;
}

/** lowercase hex SHA-256 of the previous entry's hash ('' for the first) followed by the entry's canonical JSON. */
export function entryHash(previousHash: string, entry: Omit<AuditEntry, 'hash'>): string {
  return sha256Hex(previousHash + canonicalEntry(entry));
}

// One-shot hashing (Node.js 20.12 and later) costs a third of a Hash object's for texts this short; verification
// hashes a million of them.
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
const sha256Hex = oneShotHash
  ? (text: string) => oneShotHash('sha256', text, 'hex')
  : (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Walks an organization's entries in id order from the head's anchor and names the first that breaks the chain:
 * - `removed`: an id is missing (named: the first entry after the gap), or the head names a later entry than the
 *   last one there (named: the first missing id);
 * - `inserted`: an entry the head does not know (past its last id), or one whose removal makes the chain whole again;
 * - `changed`: an entry whose hash no longer matches its content and predecessor.
 */
export async function verifyChain(head: AuditHead | undefined, entries: AsyncIterable<AuditEntry[]>): Promise<AuditVerification> {
  const start = head ?? { lastId: 0, lastHash: '', anchorId: 0, anchorHash: '' };
  let previousHash = start.anchorHash;
  let expectedId = start.anchorId + 1;
  let checked = 0;
  let pending: AuditEntry | undefined; // an entry whose hash failed: decided by the next one (changed or inserted)
  let pendingPreviousHash = '';
  const fail = (id: number, reason: AuditInvalidReason): AuditVerification => ({ ok: false, checked, firstInvalid: { id, reason } });
  for await (const page of entries) {
    for (const entry of page) {
      if (pending) {
        // Does the chain run on as though `pending` were not there? Then it was inserted; otherwise changed.
        const skipped = entry.id === pending.id + 1 && entryHash(pendingPreviousHash, entry) === entry.hash;
        return fail(pending.id, skipped ? 'inserted' : 'changed');
      }
      if (entry.id > start.lastId) return fail(entry.id, 'inserted');
      if (entry.id < expectedId) return fail(entry.id, 'inserted');
      if (entry.id > expectedId) return fail(entry.id, 'removed');
      if (entryHash(previousHash, entry) !== entry.hash) {
        pending = entry;
        pendingPreviousHash = previousHash;
        continue;
      }
      checked += 1;
      previousHash = entry.hash;
      expectedId += 1;
    }
  }
  if (pending) return fail(pending.id, 'changed');
  if (expectedId - 1 < start.lastId) return fail(expectedId, 'removed');
  if (start.lastId > start.anchorId && previousHash !== start.lastHash) return fail(start.lastId, 'changed');
  return { ok: true, checked, firstInvalid: null };
}
