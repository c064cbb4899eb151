import { sql, type Kysely } from 'kysely';
import { isSqlite } from './dialect.js';

/**
 * PostgreSQL: `audit_append`, an audit entry appended in one call (SPEC 14: recording adds at most 10 % to a
 * mutation). It locks the organization's head (appends of one organization queue there, other organizations' go
 * on), numbers the entry after it, hashes it (SHA-256 over the previous hash and the canonical JSON, whose text
 * around the id the caller gives: src/domain/audit/audit-chain.ts) and moves the head. One round trip, and PL/pgSQL
 * keeps its statements' plans, where the same statement sent as SQL was planned anew each time (half its cost).
 * Returns no row when the organization has no head yet (the caller makes it and calls again). SQLite appends with
 * prepared statements in-process and needs nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) return;
  await sql`
    create function audit_append(
      p_organization_id text, p_at bigint, p_actor_type text, p_actor_id text, p_actor_label text, p_via text,
      p_request_id text, p_address text, p_action text, p_target_type text, p_target_id text, p_changes text,
      p_outcome text, p_before_id text, p_after_id text
    ) returns table (entry_id bigint, entry_hash text) language plpgsql as $$
    declare
      v_id bigint;
      v_hash text;
    begin
      select last_id + 1, last_hash into v_id, v_hash from audit_heads where organization_id = p_organization_id for update;
      if not found then return; end if;
      v_hash := encode(sha256(convert_to(v_hash || p_before_id || v_id::text || p_after_id, 'UTF8')), 'hex');
      insert into audit_entries (organization_id, id, at, actor_type, actor_id, actor_label, via, request_id, address,
        action, target_type, target_id, changes, outcome, hash)
      values (p_organization_id, v_id, p_at, p_actor_type, p_actor_id, p_actor_label, p_via, p_request_id, p_address,
        p_action, p_target_type, p_target_id, p_changes, p_outcome, v_hash);
      update audit_heads set last_id = v_id, last_hash = v_hash where organization_id = p_organization_id;
      entry_id := v_id;
      entry_hash := v_hash;
      return next;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) return;
  await sql`drop function audit_append(text, bigint, text, text, text, text, text, text, text, text, text, text, text, text, text)`.execute(
    db,
  );
}
