import type { OutboxRow, OutboxTarget, OutboxTargets, WireHandOff } from '../../domain/webhooks/webhook-types.js';
import type { Statement } from './postgres-statements.js';

/**
 * The webhook outbox as the batch writers see it (SPEC section 11): the targets of the organizations a batch
 * touches, decided from the in-memory endpoint view before the batch goes to the writer, and the insert of the
 * rows in the batch's transaction. Plain values: they cross to the SQLite writer thread.
 */
export interface WireOutbox {
  targets: OutboxTarget[];
  firstDelayMs: number;
  /** The endpoints whose new rows are written leased for this instance's dispatcher. */
  handOff?: WireHandOff | undefined;
}

/** Which of `targets` the dispatcher takes in memory now (undefined: none). */
export function wireHandOff(targets: readonly OutboxTarget[], webhooks: OutboxTargets): WireHandOff | undefined {
  const handOff = webhooks.handOff;
  if (!handOff) return undefined;
  const endpointIds = targets.filter((t) => handOff.accepts(t.endpointId)).map((t) => t.endpointId);
  return endpointIds.length === 0 ? undefined : { endpointIds, leaseMs: handOff.leaseMs };
}

/** The rows as one PostgreSQL statement (unnest arrays): one insert per batch, whatever the endpoints. */
export function outboxInsertPostgres(rows: readonly OutboxRow[]): Statement {
  return {
    text: `insert into webhook_deliveries (id, organization_id, endpoint_id, event_types, events, event_count, status, attempt_count, next_attempt_at, locked_until, created_at, updated_at)
     select u.id, u.organization_id, u.endpoint_id, u.event_types, u.events, u.event_count, 'pending', 0, u.next_attempt_at, u.locked_until, u.created_at, u.created_at
     from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::bigint[], $8::bigint[], $9::bigint[])
       as u(id, organization_id, endpoint_id, event_types, events, event_count, next_attempt_at, created_at, locked_until)`,
    values: [
      rows.map((r) => r.id),
      rows.map((r) => r.organizationId),
      rows.map((r) => r.endpointId),
      rows.map((r) => r.eventTypes),
      rows.map((r) => r.events),
      rows.map((r) => r.eventCount),
      rows.map((r) => r.nextAttemptAt),
      rows.map((r) => r.createdAt),
      rows.map((r) => r.leaseUntil ?? null),
    ],
  };
}

export const outboxInsertSqlite = `insert into webhook_deliveries (id, organization_id, endpoint_id, event_types, events, event_count, status, attempt_count, next_attempt_at, locked_until, created_at, updated_at)
  values (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)`;
