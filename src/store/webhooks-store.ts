import { CompiledQuery, sql, type Compilable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type {
  DeliveryStatus,
  DeliveryWithAttempts,
  OutboxRow,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEventType,
  WebhookHealth,
  WebhookHealthState,
} from '../domain/webhooks/webhook-types.js';
import type { WriterStatement } from './batch-writer/sqlite-writer-protocol.js';
import type { Dialect } from './database.js';
import type { Schema, WebhookDeliveriesTable, WebhookEndpointsTable } from './schema.js';

export type WebhooksStore = ReturnType<typeof webhooksStore>;

/** A change of an endpoint; only the fields given change. */
export type EndpointPatch = Partial<
  Pick<
    WebhookEndpoint,
    | 'url'
    | 'description'
    | 'events'
    | 'groupIds'
    | 'tuids'
    | 'tsmIds'
    | 'batchMaxEvents'
    | 'batchMaxWaitMs'
    | 'enabled'
    | 'sealedSecret'
    | 'sealedPreviousSecret'
    | 'previousSecretUntil'
    | 'health'
  >
>;

/** What an attempt left a delivery in. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: number;
}

/**
 * Webhook endpoints, the outbox of deliveries and the delivery log (migration 0022). Claims take a lease
 * (`locked_until`) on due rows; on PostgreSQL through FOR UPDATE SKIP LOCKED, so two instances never claim one row;
 * an attempt's outcome and its log row are written together, which ends the lease.
 */
export function webhooksStore(db: Kysely<Schema>, dialect: Dialect) {
  let writer: ((statements: readonly WriterStatement[]) => Promise<unknown[][]>) | undefined;
  /** Writes in one transaction: on the writer thread when routed there, else on this connection. */
  const writes = async (queries: readonly Compilable[]): Promise<void> => {
    if (writer)
      await writer(
        queries.map((q) => {
          // Only what the thread runs crosses to it: a compiled query's syntax tree would be copied at every write.
          const { sql: text, parameters } = q.compile();
          return { sql: text, parameters };
        }),
      );
    else
      await db.transaction().execute(async (trx) => {
        for (const query of queries) await trx.executeQuery(query.compile());
      });
  };
  return {
    async createEndpoint(endpoint: WebhookEndpoint): Promise<void> {
      await db.insertInto('webhook_endpoints').values(endpointRow(endpoint)).execute();
    },

    async getEndpoint(organizationId: string, id: string): Promise<WebhookEndpoint | undefined> {
      const row = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toEndpoint(row);
    },

    async listEndpoints(organizationId: string): Promise<WebhookEndpoint[]> {
      const rows = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toEndpoint);
    },

    /** Every endpoint of the deployment (the in-memory view; a few thousand rows at most). */
    async listAllEndpoints(): Promise<WebhookEndpoint[]> {
      return (await db.selectFrom('webhook_endpoints').selectAll().execute()).map(toEndpoint);
    },

    async updateEndpoint(organizationId: string, id: string, patch: EndpointPatch, now: number): Promise<WebhookEndpoint | undefined> {
      const set = patchRow(patch);
      const result = await db
        .updateTable('webhook_endpoints')
        .set({ ...set, updated_at: now })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return undefined;
      return this.getEndpoint(organizationId, id);
    },

    /** Re-enabling: the deliveries that waited are due now. */
    async releaseWaiting(endpointId: string, now: number): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: now, locked_until: null, updated_at: now })
        .where('endpoint_id', '=', endpointId)
        .where('status', '=', 'pending')
        .execute();
    },

    /** Removes the endpoint with its deliveries and log; answers how many pending deliveries were dropped (undefined: no such endpoint). */
    async deleteEndpoint(organizationId: string, id: string): Promise<number | undefined> {
      return db.transaction().execute(async (trx) => {
        const deleted = await trx
          .deleteFrom('webhook_endpoints')
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (Number(deleted.numDeletedRows) === 0) return undefined;
        const pending = await trx
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('endpoint_id', '=', id)
          .where('status', '=', 'pending')
          .executeTakeFirstOrThrow();
        await trx.deleteFrom('webhook_attempts').where('endpoint_id', '=', id).execute();
        await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
        return Number(pending.n);
      });
    },

    /** Outbox rows written outside an ingest batch (thing changes, alerts, command answers, test events), in `trx` when given. */
    async insertDeliveries(rows: readonly OutboxRow[], trx?: Transaction<Schema>): Promise<void> {
      if (rows.length === 0) return;
      await (trx ?? db)
        .insertInto('webhook_deliveries')
        .values(rows.map((row) => deliveryRow(row)))
        .execute();
    },

    /**
     * Claims at most `limit` due pending deliveries of an endpoint: their lease runs to `leaseUntil`. On
     * PostgreSQL, rows another instance is claiming are skipped (FOR UPDATE SKIP LOCKED) and rows it holds a lease
     * on are not due, so one attempt runs on one instance.
     */
    async claimDue(endpointId: string, limit: number, now: number, leaseUntil: number): Promise<WebhookDelivery[]> {
      const claim = db
        .updateTable('webhook_deliveries')
        .set({ locked_until: leaseUntil })
        .where('id', 'in', (eb) => {
          const due = eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('endpoint_id', '=', endpointId)
            .where('status', '=', 'pending')
            .where('next_attempt_at', '<=', now)
            .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<', now)]))
            .orderBy('next_attempt_at')
            .limit(limit);
          return dialect === 'postgres' ? due.forUpdate().skipLocked() : due;
        })
        .returningAll();
      const rows = writer ? ((await writer([claim.compile()]))[0] as Selectable<WebhookDeliveriesTable>[]) : await claim.execute();
      return rows.map(toDelivery).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
    },

    /**
     * Joins deliveries never tried yet into the first (a batching endpoint's partial batches), keeping the first's
     * id; the others go. Only rows whose lease this caller holds (`leaseUntil`) are touched.
     */
    async joinUntried(
      first: WebhookDelivery,
      others: readonly WebhookDelivery[],
      events: string,
      eventTypes: string[],
      eventCount: number,
    ) {
      await writes([
        db
          .updateTable('webhook_deliveries')
          .set({ events, event_types: JSON.stringify(eventTypes), event_count: eventCount })
          .where('id', '=', first.id),
        db.deleteFrom('webhook_deliveries').where(
          'id',
          'in',
          others.map((o) => o.id),
        ),
      ]);
    },

    /**
     * Logs attempts and sets each delivery's state after its attempt (ending its lease), all in one transaction.
     * Statements of fixed text (PostgreSQL: two, arrays through unnest; SQLite: two per attempt, prepared once):
     * a draining backlog records thousands a second, and a query built and compiled per row cost the event loop
     * more than the attempts themselves.
     */
    async recordAttempts(records: readonly { attempt: WebhookAttempt; outcome: AttemptOutcome }[]): Promise<void> {
      if (records.length === 0) return;
      const attempts = records.map(({ attempt }) => attempt);
      if (dialect === 'postgres') {
        // One statement (the insert a data-modifying CTE of the update): atomic on its own, and one round trip
        // rather than four (begin, insert, update, commit) for each group of a backlog that drains by thousands.
        await sql`with logged as (
            insert into webhook_attempts (delivery_id, endpoint_id, at, status_code, duration_ms, error, response_excerpt)
            select * from unnest(${attempts.map((a) => a.deliveryId)}::text[], ${attempts.map((a) => a.endpointId)}::text[],
              ${attempts.map((a) => a.at)}::bigint[], ${attempts.map((a) => a.statusCode)}::int[],
              ${attempts.map((a) => Math.round(a.durationMs))}::int[], ${attempts.map((a) => a.error)}::text[],
              ${attempts.map((a) => a.responseExcerpt)}::text[]))
          update webhook_deliveries as d
          set status = u.status, attempt_count = u.attempt_count, next_attempt_at = u.next_attempt_at,
            locked_until = null, updated_at = u.updated_at
          from unnest(${records.map((r) => r.attempt.deliveryId)}::text[], ${records.map((r) => r.outcome.status)}::text[],
            ${records.map((r) => r.outcome.attemptCount)}::int[], ${records.map((r) => r.outcome.nextAttemptAt)}::bigint[],
            ${records.map((r) => r.attempt.at)}::bigint[])
            as u(id, status, attempt_count, next_attempt_at, updated_at)
          where d.id = u.id`.execute(db);
        return;
      }
      // SQLite: two statements of fixed text, prepared once by whoever runs them (the writer thread keeps them), run
      // once per row with no query built and compiled per row.
      const attemptRows = attempts.map((a) => [
        a.deliveryId,
        a.endpointId,
        a.at,
        a.statusCode,
        Math.round(a.durationMs),
        a.error,
        a.responseExcerpt,
      ]);
      const outcomeRows = records.map(({ attempt: a, outcome }) => [
        outcome.status,
        outcome.attemptCount,
        outcome.nextAttemptAt,
        a.at,
        a.deliveryId,
      ]);
      if (writer) {
        await writer([
          { sql: sqliteAttemptInsert, each: attemptRows },
          { sql: sqliteDeliveryOutcome, each: outcomeRows },
        ]);
        return;
      }
      await writes([
        ...attemptRows.map((row) => rawStatement(sqliteAttemptInsert, row)),
        ...outcomeRows.map((row) => rawStatement(sqliteDeliveryOutcome, row)),
      ]);
    },

    /** A failing endpoint succeeded again: its pending deliveries not held by an attempt are due now. */
    async bringForward(endpointId: string, now: number): Promise<void> {
      await writes([
        db
          .updateTable('webhook_deliveries')
          .set({ next_attempt_at: now })
          .where('endpoint_id', '=', endpointId)
          .where('status', '=', 'pending')
          .where('next_attempt_at', '>', now)
          .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<', now)])),
      ]);
    },

    /** Ends every pending delivery's lease (SQLite at start: no other process can hold one). */
    async releaseLeases(): Promise<void> {
      await writes([
        db
          .updateTable('webhook_deliveries')
          .set({ locked_until: null })
          .where('status', '=', 'pending')
          .where('locked_until', 'is not', null),
      ]);
    },

    /** Ends a lease without an attempt (the endpoint was disabled meanwhile): the delivery waits as it was. */
    async release(deliveryId: string): Promise<void> {
      await writes([db.updateTable('webhook_deliveries').set({ locked_until: null }).where('id', '=', deliveryId)]);
    },

    /**
     * SQLite with a writer thread: the dispatcher's writes (claims, attempts, joins, releases) run there, between
     * ingest batches, instead of on the main connection, where each would hold the event loop while it waits for
     * the writer's lock. Set by the composition root.
     */
    routeWrites(run: (statements: readonly WriterStatement[]) => Promise<unknown[][]>): void {
      writer = run;
    },

    /** The delivery log of an endpoint, newest first; `cursor` continues after the given (created_at, id). */
    async listDeliveries(
      endpointId: string,
      options: { status?: DeliveryStatus; limit: number; after?: { createdAt: number; id: string } },
    ): Promise<DeliveryWithAttempts[]> {
      let query = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
      if (options.status) query = query.where('status', '=', options.status);
      const after = options.after;
      if (after)
        query = query.where((w) =>
          w.or([w('created_at', '<', after.createdAt), w.and([w('created_at', '=', after.createdAt), w('id', '<', after.id)])]),
        );
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
      if (rows.length === 0) return [];
      const attempts = await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where(
          'delivery_id',
          'in',
          rows.map((r) => r.id),
        )
        .orderBy('at')
        .orderBy('id')
        .execute();
      const byDelivery = new Map<string, WebhookAttempt[]>();
      for (const a of attempts) {
        const list = byDelivery.get(a.delivery_id) ?? [];
        list.push({
          deliveryId: a.delivery_id,
          endpointId: a.endpoint_id,
          at: a.at,
          statusCode: a.status_code,
          durationMs: a.duration_ms,
          error: a.error,
          responseExcerpt: a.response_excerpt,
        });
        byDelivery.set(a.delivery_id, list);
      }
      return rows.map((row) => ({ ...toDelivery(row), attempts: byDelivery.get(row.id) ?? [] }));
    },

    async getDelivery(endpointId: string, id: string): Promise<WebhookDelivery | undefined> {
      const row = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpointId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toDelivery(row);
    },

    /** Queues new attempts (the whole schedule again) for the given delivery, or every failed one created since `since`. */
    async replay(endpointId: string, which: { id: string } | { since: number }, now: number): Promise<number> {
      let query = db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', attempt_count: 0, next_attempt_at: now, locked_until: null, updated_at: now })
        .where('endpoint_id', '=', endpointId);
      query =
        'id' in which
          ? query.where('id', '=', which.id).where('status', '!=', 'pending')
          : query.where('status', '=', 'failed').where('created_at', '>=', which.since);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Pending deliveries per organization: how many and the oldest's creation (for /metrics). */
    async queueStats(): Promise<{ organizationId: string; pending: number; oldestCreatedAt: number }[]> {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select(['organization_id'])
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<number>('created_at').as('oldest')])
        .where('status', '=', 'pending')
        .groupBy('organization_id')
        .execute();
      return rows.map((r) => ({ organizationId: r.organization_id, pending: Number(r.n), oldestCreatedAt: Number(r.oldest) }));
    },

    /** Removes at most `limit` log rows older than `before` (settled deliveries and attempts); answers how many went. */
    async expireLog(before: number, limit: number): Promise<number> {
      const attempts = await db
        .deleteFrom('webhook_attempts')
        .where('id', 'in', (eb) => eb.selectFrom('webhook_attempts').select('id').where('at', '<', before).limit(limit))
        .executeTakeFirst();
      const deliveries = await db
        .deleteFrom('webhook_deliveries')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('status', 'in', ['succeeded', 'failed'])
            .where('updated_at', '<', before)
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(attempts.numDeletedRows) + Number(deliveries.numDeletedRows);
    },
  };
}

const sqliteAttemptInsert = `insert into webhook_attempts (delivery_id, endpoint_id, at, status_code, duration_ms, error, response_excerpt)
  values (?, ?, ?, ?, ?, ?, ?)`;
const sqliteDeliveryOutcome = `update webhook_deliveries set status = ?, attempt_count = ?, next_attempt_at = ?, locked_until = null, updated_at = ?
  where id = ?`;

function rawStatement(text: string, parameters: readonly unknown[]): Compilable {
  return { compile: () => CompiledQuery.raw(text, [...parameters]) };
}

export function deliveryRow(row: OutboxRow): Selectable<WebhookDeliveriesTable> {
  return {
    id: row.id,
    organization_id: row.organizationId,
    endpoint_id: row.endpointId,
    event_types: row.eventTypes,
    events: row.events,
    event_count: row.eventCount,
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: row.nextAttemptAt,
    locked_until: null,
    created_at: row.createdAt,
    updated_at: row.createdAt,
  };
}

const json = (value: unknown[] | null) => (value === null ? null : JSON.stringify(value));

function endpointRow(e: WebhookEndpoint): Selectable<WebhookEndpointsTable> {
  return {
    id: e.id,
    organization_id: e.organizationId,
    url: e.url,
    description: e.description,
    events: JSON.stringify(e.events),
    group_ids: json(e.groupIds),
    tuids: json(e.tuids),
    tsm_ids: json(e.tsmIds),
    batch_max_events: e.batchMaxEvents,
    batch_max_wait_ms: e.batchMaxWaitMs,
    enabled: e.enabled ? 1 : 0,
    secret: e.sealedSecret,
    previous_secret: e.sealedPreviousSecret,
    previous_secret_until: e.previousSecretUntil,
    health_state: e.health.state,
    failing_since: e.health.failingSince,
    last_error: e.health.lastError,
    last_success_at: e.health.lastSuccessAt,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

function patchRow(p: EndpointPatch): Partial<Selectable<WebhookEndpointsTable>> {
  const row: Partial<Selectable<WebhookEndpointsTable>> = {};
  if (p.url !== undefined) row.url = p.url;
  if (p.description !== undefined) row.description = p.description;
  if (p.events !== undefined) row.events = JSON.stringify(p.events);
  if (p.groupIds !== undefined) row.group_ids = json(p.groupIds);
  if (p.tuids !== undefined) row.tuids = json(p.tuids);
  if (p.tsmIds !== undefined) row.tsm_ids = json(p.tsmIds);
  if (p.batchMaxEvents !== undefined) row.batch_max_events = p.batchMaxEvents;
  if (p.batchMaxWaitMs !== undefined) row.batch_max_wait_ms = p.batchMaxWaitMs;
  if (p.enabled !== undefined) row.enabled = p.enabled ? 1 : 0;
  if (p.sealedSecret !== undefined) row.secret = p.sealedSecret;
  if (p.sealedPreviousSecret !== undefined) row.previous_secret = p.sealedPreviousSecret;
  if (p.previousSecretUntil !== undefined) row.previous_secret_until = p.previousSecretUntil;
  if (p.health !== undefined) {
    row.health_state = p.health.state;
    row.failing_since = p.health.failingSince;
    row.last_error = p.health.lastError;
    row.last_success_at = p.health.lastSuccessAt;
  }
  return row;
}

function toEndpoint(row: Selectable<WebhookEndpointsTable>): WebhookEndpoint {
  const health: WebhookHealth = {
    state: row.health_state as WebhookHealthState,
    failingSince: nullableNumber(row.failing_since),
    lastError: row.last_error,
    lastSuccessAt: nullableNumber(row.last_success_at),
  };
  return {
    id: row.id,
    organizationId: row.organization_id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as WebhookEventType[],
    groupIds: row.group_ids === null ? null : (JSON.parse(row.group_ids) as string[]),
    tuids: row.tuids === null ? null : (JSON.parse(row.tuids) as string[]),
    tsmIds: row.tsm_ids === null ? null : (JSON.parse(row.tsm_ids) as number[]),
    batchMaxEvents: row.batch_max_events,
    batchMaxWaitMs: row.batch_max_wait_ms,
    enabled: Number(row.enabled) === 1,
    sealedSecret: row.secret,
    sealedPreviousSecret: row.previous_secret,
    previousSecretUntil: nullableNumber(row.previous_secret_until),
    health,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  return {
    id: row.id,
    organizationId: row.organization_id,
    endpointId: row.endpoint_id,
    eventTypes: JSON.parse(row.event_types) as string[],
    events: row.events,
    eventCount: row.event_count,
    status: row.status as DeliveryStatus,
    attemptCount: row.attempt_count,
    nextAttemptAt: Number(row.next_attempt_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function nullableNumber(value: number | null): number | null {
  return value === null ? null : Number(value);
}
