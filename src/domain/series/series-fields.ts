import type { Principal } from '../auth/principal.js';
import type { DomainDeps } from '../domain-deps.js';
import type { RequestWork } from '../workload/request-work.js';
import { listMessages } from '../messages/message-query.js';
import { extractNumericFields } from './rollup-rules.js';

/** How many of a thing's newest messages are read to find which fields it has series of. */
export const seriesFieldsRecentMessages = 200;

/** The numeric fields of one message id, in the order they first appear (newest message first). */
export interface SeriesFields {
  tsmId: number;
  fields: string[];
}

/**
 * Which series a thing has: per message id, the fields of its newest messages that the rollup rule counts as
 * numbers (extractNumericFields, the rule the series read by), so a client can offer exactly the fields `series`
 * answers for. Message ids by number. NOT_FOUND for a thing the caller cannot see.
 */
export async function listSeriesFields(
  deps: Pick<DomainDeps, 'store'>,
  principal: Principal,
  tuid: string,
  work: RequestWork = {},
): Promise<SeriesFields[]> {
  const texts = await listMessages(deps, principal, { tuid, limit: seriesFieldsRecentMessages }, work);
  const byId = new Map<number, Set<string>>();
  for (const text of texts) {
    const message = JSON.parse(text) as Record<string, unknown>;
    if (typeof message.tsmId !== 'number') continue;
    const fields = byId.get(message.tsmId) ?? new Set<string>();
    for (const field of extractNumericFields(message)) fields.add(field.name);
    if (fields.size > 0) byId.set(message.tsmId, fields);
  }
  return [...byId.entries()].sort(([a], [b]) => a - b).map(([tsmId, fields]) => ({ tsmId, fields: [...fields] }));
}
