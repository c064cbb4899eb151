import type { DomainDeps } from '../domain-deps.js';
import { validationFailed, type FieldProblem } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { requireThing } from '../things/thing-access.js';
import { stopIfAbandoned, type RequestWork } from '../workload/request-work.js';

/** `limit` of a message list: required, 1 to 10000 (SPEC section 3). */
export const messageLimit = { min: 1, max: 10_000 } as const;

export interface MessageListInput {
  tuid: string;
  limit: number | undefined;
  messageIds?: readonly number[];
  eventIds?: readonly number[];
  /** Unix seconds, inclusive. */
  from?: number;
  to?: number;
}

/**
 * A thing's stored messages, newest first, as JSON texts with `deploymentGroupId` (the same for REST and
 * GraphQL). Checks `limit` and the time window; NOT_FOUND for a thing the caller cannot see. Reads nothing more
 * once `work` is abandoned.
 */
export async function listMessages(
  deps: Pick<DomainDeps, 'store'>,
  principal: Principal,
  input: MessageListInput,
  work: RequestWork = {},
): Promise<string[]> {
  const problems: FieldProblem[] = [];
  if (input.limit === undefined) problems.push({ field: 'limit', message: 'limit is required' });
  else if (!Number.isInteger(input.limit) || input.limit < messageLimit.min || input.limit > messageLimit.max) {
    problems.push({ field: 'limit', message: `limit must be an integer from ${messageLimit.min} to ${messageLimit.max}` });
  }
  for (const field of ['from', 'to'] as const) {
    const value = input[field];
    if (value !== undefined && (!Number.isInteger(value) || value < 0))
      problems.push({ field, message: `${field} must be Unix seconds (a non-negative integer)` });
  }
  if (input.from !== undefined && input.to !== undefined && input.from > input.to)
    problems.push({ field: 'from', message: 'from must not be after to' });
  if (problems.length > 0) throw validationFailed(problems);
  stopIfAbandoned(work);
  await requireThing(deps, principal, input.tuid);
  stopIfAbandoned(work);
  return deps.store.messages.listJson({
    tuid: input.tuid,
    limit: input.limit!,
    messageIds: input.messageIds,
    eventIds: input.eventIds,
    from: input.from,
    to: input.to,
  });
}
