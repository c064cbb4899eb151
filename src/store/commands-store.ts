import type { Kysely } from 'kysely';
import type { CommandStatus, StoredCommandItem, StoredCommandRequest } from '../domain/commands/command-types.js';
import type { Schema } from './schema.js';
import { writeOutbox, type OutboxEvent, type WebhookOutboxHolder } from './webhook-outbox-writer.js';

export type CommandsStore = ReturnType<typeof commandsStore>;

/** A request to store: who sent which commands to which thing, when (milliseconds). */
export interface NewCommandRequest {
  organizationId: string;
  tuid: string;
  timestamp: number;
  responsible: string;
  /** In request order; `body` is the command as published (JSON). */
  items: readonly { transactionId: number | null; body: string }[];
}

/** A command still waiting for its answer. */
export interface WaitingCommandItem {
  requestId: number;
  position: number;
  body: string;
}

export interface CommandAnswerUpdate {
  requestId: number;
  position: number;
  status: Exclude<CommandStatus, 'sent'>;
  response: string;
  respondedAt: number;
}

// Item rows are read for the requests of one page; bounded so a long history never exceeds a bind-parameter limit.
const itemChunk = 500;

/** Command history (SPEC section 3): one request row per send, one item row per command. */
export function commandsStore(db: Kysely<Schema>, outbox: WebhookOutboxHolder = {}) {
  return {
    /** Stores a request and its items in one transaction; resolves with the request id. */
    async create(request: NewCommandRequest): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const { id } = await trx
          .insertInto('command_requests')
          .values({
            organization_id: request.organizationId,
            tuid: request.tuid,
            timestamp: request.timestamp,
            responsible: request.responsible,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('command_items')
          .values(
            request.items.map((item, position) => ({
              request_id: Number(id),
              position,
              tuid: request.tuid,
              transaction_id: item.transactionId,
              body: item.body,
              status: 'sent' satisfies CommandStatus,
              response: null,
              responded_at: null,
            })),
          )
          .execute();
        return Number(id);
      });
    },

    /** Removes a request and its items in one transaction (a send that could not be published). */
    async delete(requestId: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('command_items').where('request_id', '=', requestId).execute();
        await trx.deleteFrom('command_requests').where('id', '=', requestId).execute();
      });
    },

    /** A thing's requests with their items, newest first; `limit` undefined means all. */
    async list(query: { organizationId: string; tuid: string; limit?: number }): Promise<StoredCommandRequest[]> {
      let select = db
        .selectFrom('command_requests')
        .select(['id', 'tuid', 'timestamp', 'responsible'])
        .where('tuid', '=', query.tuid)
        .where('organization_id', '=', query.organizationId)
        .orderBy('id', 'desc');
      if (query.limit !== undefined) select = select.limit(query.limit);
      const requests = await select.execute();
      const items = await itemsOf(
        db,
        requests.map((request) => request.id),
      );
      return requests.map((request) => ({ ...request, items: items.get(request.id) ?? [] }));
    },

    /**
     * The thing's commands with this transactionId still `sent`, newest request first, in request order within
     * one. Uses the (tuid, transaction_id) index.
     */
    async listWaiting(query: { organizationId: string; tuid: string; transactionId: number }): Promise<WaitingCommandItem[]> {
      return db
        .selectFrom('command_items')
        .innerJoin('command_requests', 'command_requests.id', 'command_items.request_id')
        .select(['command_items.request_id as requestId', 'command_items.position', 'command_items.body'])
        .where('command_items.tuid', '=', query.tuid)
        .where('command_items.transaction_id', '=', query.transactionId)
        .where('command_items.status', '=', 'sent' satisfies CommandStatus)
        .where('command_requests.organization_id', '=', query.organizationId)
        .orderBy('command_items.request_id', 'desc')
        .orderBy('command_items.position', 'asc')
        .execute();
    },

    /**
     * Records an item's answer, only while it is still `sent`: false when another answer (or another instance)
     * got there first, so an answer never overwrites an earlier one.
     */
    async markAnswered(update: CommandAnswerUpdate, webhookEvent?: OutboxEvent): Promise<boolean> {
      // With its `command.answered` webhook deliveries, in one transaction (the outbox).
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('command_items')
          .set({ status: update.status, response: update.response, responded_at: update.respondedAt })
          .where('request_id', '=', update.requestId)
          .where('position', '=', update.position)
          .where('status', '=', 'sent' satisfies CommandStatus)
          .executeTakeFirst();
        const answered = Number(result.numUpdatedRows) > 0;
        if (answered && webhookEvent) await writeOutbox(trx, outbox, [webhookEvent]);
        return answered;
      });
    },
  };
}

async function itemsOf(db: Kysely<Schema>, requestIds: readonly number[]): Promise<Map<number, StoredCommandItem[]>> {
  const byRequest = new Map<number, StoredCommandItem[]>();
  for (let start = 0; start < requestIds.length; start += itemChunk) {
    const rows = await db
      .selectFrom('command_items')
      .select(['request_id', 'position', 'transaction_id', 'body', 'status', 'response', 'responded_at'])
      .where('request_id', 'in', requestIds.slice(start, start + itemChunk))
      .orderBy('request_id')
      .orderBy('position')
      .execute();
    for (const row of rows) {
      const items = byRequest.get(row.request_id) ?? [];
      items.push({
        position: row.position,
        transactionId: row.transaction_id,
        body: row.body,
        status: row.status as CommandStatus,
        response: row.response,
        respondedAt: row.responded_at,
      });
      byRequest.set(row.request_id, items);
    }
  }
  return byRequest;
}
