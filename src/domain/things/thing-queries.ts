import type { DomainDeps } from '../domain-deps.js';
import { AppError, fieldProblem, validationFailed, type FieldProblem } from '../errors.js';
import { requireGroupRef } from '../groups/group-id-rules.js';
import type { Principal } from '../auth/principal.js';
import { installationStatuses, type Thing } from './thing-types.js';
import { isValidTuid } from './tuid.js';

/** Page size of thing lists: 1 to 1000, 100 when not given. */
export const thingPageLimit = { min: 1, max: 1000, default: 100 } as const;

export interface ThingListInput {
  /** A group id, or `unassigned` for things in no group. */
  groupId?: string;
  installationStatus?: string;
  /** Case-insensitive substring of the TUID. */
  q?: string;
  /** true: only things with an active alert (of any type); false: only things without one. */
  alerting?: boolean;
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface ThingPage {
  things: Thing[];
  /** Opaque; null on the last page. */
  nextCursor: string | null;
}

/** The caller's things by TUID, filtered, one page at a time (REST `GET /things`, GraphQL `things`). */
export async function listThings(deps: Pick<DomainDeps, 'store'>, principal: Principal, input: ThingListInput): Promise<ThingPage> {
  const problems: FieldProblem[] = [];
  const limit = input.limit ?? thingPageLimit.default;
  if (!Number.isInteger(limit) || limit < thingPageLimit.min || limit > thingPageLimit.max) {
    problems.push(fieldProblem('limit', `must be an integer from ${thingPageLimit.min} to ${thingPageLimit.max}`));
  }
  if (input.installationStatus !== undefined && !(installationStatuses as readonly string[]).includes(input.installationStatus)) {
    problems.push(fieldProblem('installationStatus', `must be one of ${installationStatuses.join(', ')}`));
  }
  let groupId: string | null | undefined;
  try {
    groupId = input.groupId === undefined ? undefined : requireGroupRef('groupId', input.groupId);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    problems.push(...error.errors);
  }
  const afterTuid = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  if (afterTuid === null) problems.push(fieldProblem('cursor', 'is not one this service returned'));
  if (problems.length > 0) throw validationFailed(problems);
  // One more than asked tells whether another page exists without a count query.
  const rows = await deps.store.things.list(principal.organizationId, {
    groupId,
    installationStatus: input.installationStatus,
    q: input.q,
    alerting: input.alerting,
    afterTuid: afterTuid ?? undefined,
    limit: limit + 1,
  });
  const things = rows.slice(0, limit);
  return { things, nextCursor: rows.length > limit ? encodeCursor(things[things.length - 1]!.tuid) : null };
}

function encodeCursor(tuid: string): string {
  return Buffer.from(`t:${tuid}`, 'utf8').toString('base64url');
}

/** The TUID a cursor continues after, or null when it is not a cursor of ours. */
function decodeCursor(cursor: string): string | null {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const tuid = text.startsWith('t:') ? text.slice(2) : '';
  return isValidTuid(tuid) ? tuid : null;
}
