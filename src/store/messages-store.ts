import type { Kysely } from 'kysely';
import { messageJsonWithGroup } from '../domain/messages/message-json.js';
import type { Schema } from './schema.js';

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

export function messagesStore(db: Kysely<Schema>) {
  return {
    /**
     * Newest first, as JSON texts ready to send (each with `deploymentGroupId`). Reads the primary key range of
     * one TUID backwards; the id and event filters are applied to the rows of that range.
     */
    async listJson(query: MessageQuery): Promise<string[]> {
      let select = db.selectFrom('messages').select(['body', 'group_id']).where('tuid', '=', query.tuid);
      if (query.from !== undefined) select = select.where('tsm_ts', '>=', query.from);
      if (query.to !== undefined) select = select.where('tsm_ts', '<=', query.to);
      if (query.messageIds?.length) select = select.where('tsm_id', 'in', [...query.messageIds]);
      if (query.eventIds?.length) select = select.where('tsm_ev', 'in', [...query.eventIds]);
      const rows = await select.orderBy('tsm_ts', 'desc').orderBy('tsm_id', 'desc').orderBy('fingerprint', 'desc').limit(query.limit).execute();
      return rows.map((row) => messageJsonWithGroup(row.body, row.group_id));
    },
    async count(tuid: string): Promise<number> {
      const row = await db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('tuid', '=', tuid).executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
