import type { DomainDeps } from '../domain-deps.js';
import { AppError, fieldProblem, validationFailed, type FieldProblem } from '../errors.js';
import { requireGroupRef } from '../groups/group-id-rules.js';
import type { Principal } from '../auth/principal.js';
import { installationStatuses, type Thing } from './thing-types.js';
import { thingSortKeys, type ThingListFilter, type ThingListPosition, type ThingSort, type ThingSortKey } from './thing-list-types.js';
import { isValidTuid, tuidRuleInWords } from './tuid.js';
import { checkLabelKey, checkLabelValue, parseLabelFilter } from './thing-labels.js';

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
  /** Only things last heard through this gateway. */
  gatewayTuid?: string;
  /** Only things whose battery level is below this percent (1 to 100). */
  batteryBelow?: number;
  /** Only things not heard for at least this many seconds (or never heard). */
  silentForS?: number;
  /** Only things with every one of these labels: `key:value` text (REST `label=`) or `{key, value}` (GraphQL). */
  labels?: readonly (string | { key: string; value: unknown })[];
  /** `key` or `key:asc|desc` of thingSortKeys; default `tuid:asc`. */
  sort?: string;
  limit?: number;
  /** `nextCursor` of the previous page (asked with the same sort). */
  cursor?: string;
}

export interface ThingPage {
  things: Thing[];
  /** Opaque; null on the last page. */
  nextCursor: string | null;
  /** Each thing's own cursor (the page after it), aligned with `things`. */
  cursors: string[];
}

/** Totals are exact up to this many things; beyond, the count stops there and says it is an estimate (a lower bound). */
export const exactTotalLimit = 100_000;

export interface ThingTotal {
  total: number;
  totalIsEstimate: boolean;
}

/** The caller's things, filtered and sorted, one page at a time (REST `GET /things`, GraphQL `things`). */
export async function listThings(
  deps: Pick<DomainDeps, 'store' | 'clock'>,
  principal: Principal,
  input: ThingListInput,
): Promise<ThingPage> {
  const { filter, limit, sort } = checkThingList(deps, input);
  // One more than asked tells whether another page exists without a count query.
  const rows = await deps.store.things.list(principal.organizationId, { ...filter, limit: limit + 1 });
  const things = rows.slice(0, limit);
  const cursors = things.map((thing) => encodeCursor(sort, deps.store.things.sortValueOf(thing, sort), thing.tuid));
  return { things, cursors, nextCursor: rows.length > limit ? cursors[cursors.length - 1]! : null };
}

/**
 * How many of the caller's things the list's filters match (SPEC section 16). Unfiltered: the whole fleet, always
 * exact (the store keeps it per organization). Filtered: exact below `exactTotalLimit`, else that limit with
 * `totalIsEstimate` (the count stops there, so it costs the same however large the fleet).
 */
export async function countThings(
  deps: Pick<DomainDeps, 'store' | 'clock'>,
  principal: Principal,
  input: ThingListInput,
): Promise<ThingTotal> {
  const { filter } = checkThingList(deps, { ...input, cursor: undefined });
  if (isWholeFleet(filter)) return { total: await deps.store.things.count(principal.organizationId), totalIsEstimate: false };
  const counted = await deps.store.things.countMatching(principal.organizationId, filter, exactTotalLimit);
  return { total: counted, totalIsEstimate: counted >= exactTotalLimit };
}

/** True when no filter narrows the list (sort and position do not change what it holds). */
function isWholeFleet(filter: Omit<ThingListFilter, 'limit'>): boolean {
  const { sort: _sort, after: _after, ...narrowing } = filter;
  return Object.values(narrowing).every((value) => value === undefined);
}

/** The list's arguments checked (every bad one named at once) and turned into the store's filter. */
function checkThingList(
  deps: Pick<DomainDeps, 'clock'>,
  input: ThingListInput,
): { filter: Omit<ThingListFilter, 'limit'>; limit: number; sort: ThingSort } {
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
  if (input.gatewayTuid !== undefined && !isValidTuid(input.gatewayTuid)) problems.push(fieldProblem('gatewayTuid', tuidRuleInWords));
  if (input.batteryBelow !== undefined && !(Number.isInteger(input.batteryBelow) && input.batteryBelow >= 1 && input.batteryBelow <= 100)) {
    problems.push(fieldProblem('batteryBelow', 'must be an integer from 1 to 100'));
  }
  if (input.silentForS !== undefined && !(Number.isSafeInteger(input.silentForS) && input.silentForS >= 1)) {
    problems.push(fieldProblem('silentForS', 'must be a whole number of seconds, 1 or more'));
  }
  const labels = checkLabelFilters(input.labels ?? [], problems);
  const sort = parseSort(input.sort);
  if (!sort) problems.push(fieldProblem('sort', `must be one of ${thingSortKeys.join(', ')}, optionally followed by :asc or :desc`));
  const after = input.cursor === undefined || !sort ? undefined : decodeCursor(input.cursor, sort);
  if (after === null) problems.push(fieldProblem('cursor', 'is not one this service returned for this sort'));
  if (problems.length > 0 || !sort) throw validationFailed(problems);
  const filter: Omit<ThingListFilter, 'limit'> = {
    groupId,
    installationStatus: input.installationStatus,
    q: input.q,
    alerting: input.alerting,
    gatewayTuid: input.gatewayTuid,
    batteryBelow: input.batteryBelow,
    silentBefore: input.silentForS === undefined ? undefined : deps.clock.now() - input.silentForS * 1000,
    ...(labels.length > 0 ? { labels } : {}),
    sort,
    after: after ?? undefined,
  };
  return { filter, limit, sort };
}

/** At most this many label filters in one list request. */
export const labelFiltersMax = 10;

/** The label filters as the store takes them; each bad one adds a problem naming `label`. */
function checkLabelFilters(
  filters: readonly (string | { key: string; value: unknown })[],
  problems: FieldProblem[],
): { key: string; value: string }[] {
  if (filters.length > labelFiltersMax) problems.push(fieldProblem('label', `must be given at most ${labelFiltersMax} times`));
  const labels: { key: string; value: string }[] = [];
  for (const filter of filters) {
    const parsed =
      typeof filter === 'string'
        ? parseLabelFilter('label', filter)
        : (checkLabelKey('label', filter.key) ??
          checkLabelValue('label', filter.value) ?? { key: filter.key, value: filter.value as string });
    if ('field' in parsed) problems.push(parsed);
    else labels.push(parsed);
  }
  return labels;
}

function parseSort(text: string | undefined): ThingSort | undefined {
  if (text === undefined) return { key: 'tuid', direction: 'asc' };
  const [key, direction = 'asc', ...rest] = text.split(':');
  if (rest.length > 0 || !(thingSortKeys as readonly string[]).includes(key!) || (direction !== 'asc' && direction !== 'desc'))
    return undefined;
  return { key: key as ThingSortKey, direction };
}

/** By TUID a cursor is `t:<tuid>` (as before sorting existed); otherwise it names its sort, the value and the TUID. */
function encodeCursor(sort: ThingSort, value: string | number | null, tuid: string): string {
  const text =
    sort.key === 'tuid' && sort.direction === 'asc' ? `t:${tuid}` : `s:${JSON.stringify([sort.key, sort.direction, value, tuid])}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** Where a cursor continues, or null when it is not a cursor of ours for this sort. */
function decodeCursor(cursor: string, sort: ThingSort): ThingListPosition | null {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (sort.key === 'tuid' && sort.direction === 'asc') {
    const tuid = text.startsWith('t:') ? text.slice(2) : '';
    return isValidTuid(tuid) ? { value: tuid, tuid } : null;
  }
  if (!text.startsWith('s:')) return null;
  try {
    const parsed: unknown = JSON.parse(text.slice(2));
    if (!Array.isArray(parsed) || parsed.length !== 4) return null;
    const [key, direction, value, tuid] = parsed as unknown[];
    if (key !== sort.key || direction !== sort.direction || typeof tuid !== 'string' || !isValidTuid(tuid)) return null;
    // null: among the things without a name, which sort last.
    if (typeof value !== 'string' && typeof value !== 'number' && !(value === null && key === 'name')) return null;
    return { value, tuid };
  } catch {
    return null;
  }
}
