import type { Kysely } from 'kysely';
import type { DeadLetterRecord } from '../domain/messages/message-types.js';
import type { Schema } from './schema.js';

export type DeadLettersStore = ReturnType<typeof deadLettersStore>;

export function deadLettersStore(db: Kysely<Schema>) {
  return {
    /** Newest first; `organizationId` undefined lists every organization's (operators). */
    async list(options: { organizationId?: string; limit: number }): Promise<(DeadLetterRecord & { id: number })[]> {
      let query = db.selectFrom('dead_letters').selectAll();
      if (options.organizationId !== undefined) query = query.where('organization_id', '=', options.organizationId);
      const rows = await query.orderBy('id', 'desc').limit(options.limit).execute();
      return rows.map((row) => ({
        id: Number(row.id),
        organizationId: row.organization_id,
        receivedAt: row.received_at,
        source: row.source,
        client: row.client,
        reason: row.reason,
        payload: row.payload,
      }));
    },
  };
}
