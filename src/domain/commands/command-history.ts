import type { DomainDeps } from '../domain-deps.js';
import { invalidField } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { requireThing } from '../things/thing-access.js';
import { toUnixSeconds } from '../clock.js';
import type { CommandAnswered, CommandHistoryRecord, SentCommand, StoredCommandRequest, TrackedCommand } from './command-types.js';

export interface CommandHistoryQuery {
  tuid: string;
  /** Newest N requests; 0 or undefined means all. */
  limit?: number;
}

/**
 * A thing's command history (SPEC section 3): one record per request, newest first, each command with its status,
 * the thing's answer and when it arrived. Throws NOT_FOUND for an unknown or another organization's thing, and
 * VALIDATION_FAILED naming `limit` unless it is a whole number from 0.
 */
export async function listCommandHistory(
  deps: Pick<DomainDeps, 'store'>,
  principal: Principal,
  query: CommandHistoryQuery,
): Promise<CommandHistoryRecord[]> {
  const { limit } = query;
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0))
    throw invalidField('limit', 'limit must be a whole number from 0 (0: all)');
  const thing = await requireThing(deps, principal, query.tuid);
  const requests = await deps.store.commands.list({ organizationId: thing.organizationId, tuid: thing.tuid, limit: limit || undefined });
  // A request is stored and removed with its items in one transaction; one read between the two queries of
  // `list` and a removal could still see it bare, and a record without commands has no `command` to show.
  return requests.filter((request) => request.items.length > 0).map(toHistoryRecord);
}

function toHistoryRecord(request: StoredCommandRequest): CommandHistoryRecord {
  const commands: TrackedCommand[] = request.items.map((item) => ({
    ...(JSON.parse(item.body) as SentCommand),
    status: item.status,
    response: item.response === null ? null : (JSON.parse(item.response) as Record<string, unknown>),
    respondedAt: item.respondedAt === null ? null : toUnixSeconds(item.respondedAt),
  }));
  return {
    tuid: request.tuid,
    timestamp: toUnixSeconds(request.timestamp),
    responsible: request.responsible,
    command: commands[0]!,
    commands,
  };
}

/** A command as the history shows it, from the event of its answer (live views of command status). */
export function answeredCommand(answered: CommandAnswered): TrackedCommand {
  return {
    ...answered.command,
    status: answered.status,
    response: answered.response as Record<string, unknown>,
    respondedAt: toUnixSeconds(answered.respondedAt),
  };
}
