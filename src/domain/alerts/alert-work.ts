import { audited } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import type { DomainDeps } from '../domain-deps.js';
import { AppError, fieldProblem, forbidden, notFound, validationFailed, type FieldProblem } from '../errors.js';
import { mayDo } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import { requireGroupRef } from '../groups/group-id-rules.js';
import { isValidTuid, tuidRuleInWords } from '../things/tuid.js';
import { alertSeverities } from './alert-types.js';
import type { AlertSelection, AlertWorkFilter, AlertWorkItem } from './alert-work-types.js';

/** Page size of the alerts list: 1 to 1000, 100 when not given. */
export const alertPageLimit = { min: 1, max: 1000, default: 100 } as const;
/** The longest acknowledgement note, and the most periods one acknowledgement may name by id. */
export const acknowledgementLimits = { noteMaxLength: 1024, maxIds: 1000 } as const;

export interface AlertWorkInput {
  state?: string;
  alertType?: string;
  severity?: string;
  /** A group id, or `unassigned`. */
  groupId?: string;
  tuid?: string;
  gatewayTuid?: string;
  incidentId?: string;
  acknowledged?: boolean;
  /** Unix seconds, inclusive: periods overlapping the window. */
  from?: number;
  to?: number;
  limit?: number;
  cursor?: string;
}

export interface AlertWorkPage {
  alerts: AlertWorkItem[];
  /** Opaque; null on the last page. */
  nextCursor: string | null;
}

/**
 * The organization's alert periods across things, newest first, filtered, a page at a time (SPEC section 16:
 * REST `GET /alerts`, GraphQL `alertPeriods`). Every role may read them.
 */
export async function listAlertWork(deps: Pick<DomainDeps, 'store'>, principal: Principal, input: AlertWorkInput): Promise<AlertWorkPage> {
  const problems: FieldProblem[] = [];
  const limit = input.limit ?? alertPageLimit.default;
  if (!Number.isInteger(limit) || limit < alertPageLimit.min || limit > alertPageLimit.max) {
    problems.push(fieldProblem('limit', `must be an integer from ${alertPageLimit.min} to ${alertPageLimit.max}`));
  }
  if (input.state !== undefined && input.state !== 'open' && input.state !== 'closed')
    problems.push(fieldProblem('state', 'must be open or closed'));
  if (input.severity !== undefined && !(alertSeverities as readonly string[]).includes(input.severity)) {
    problems.push(fieldProblem('severity', `must be one of ${alertSeverities.join(', ')}`));
  }
  if (input.alertType !== undefined && (input.alertType.length === 0 || input.alertType.length > 100)) {
    problems.push(fieldProblem('alertType', 'must be 1 to 100 characters'));
  }
  for (const field of ['tuid', 'gatewayTuid'] as const) {
    const value = input[field];
    if (value !== undefined && !isValidTuid(value)) problems.push(fieldProblem(field, tuidRuleInWords));
  }
  if (input.incidentId !== undefined && (input.incidentId.length === 0 || input.incidentId.length > 200)) {
    problems.push(fieldProblem('incidentId', 'must be 1 to 200 characters'));
  }
  if (input.from !== undefined && input.to !== undefined && input.from > input.to)
    problems.push(fieldProblem('from', 'must not be after to'));
  let groupId: string | null | undefined;
  try {
    groupId = input.groupId === undefined ? undefined : requireGroupRef('groupId', input.groupId);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    problems.push(...error.errors);
  }
  const after = input.cursor === undefined ? undefined : decodeAlertCursor(input.cursor);
  if (after === null) problems.push(fieldProblem('cursor', 'is not one this service returned'));
  if (problems.length > 0) throw validationFailed(problems);
  const filter: AlertWorkFilter = {
    state: input.state as AlertWorkFilter['state'],
    alertType: input.alertType,
    severity: input.severity,
    groupId,
    tuid: input.tuid,
    gatewayTuid: input.gatewayTuid,
    incidentId: input.incidentId,
    acknowledged: input.acknowledged,
    fromMs: input.from === undefined ? undefined : input.from * 1000,
    toMs: input.to === undefined ? undefined : input.to * 1000 + 999,
    after: after ?? undefined,
    // One more than asked tells whether another page exists without a count query.
    limit: limit + 1,
  };
  const rows = await deps.store.alerts.listWork(principal.organizationId, filter);
  const alerts = rows.slice(0, limit);
  const last = alerts[alerts.length - 1];
  return { alerts, nextCursor: rows.length > limit && last ? encodeAlertCursor(last) : null };
}

/**
 * Marks alert periods seen (SPEC section 16): one by id, several by id, or every period of an incident. Installers,
 * Managers and API clients may; a Viewer is FORBIDDEN. The first acknowledgement of a period stands (a second one
 * changes nothing); a period stays open until its condition clears. NOT_FOUND when an id or the incident is not
 * the organization's. Answers the selected periods. The one domain function every transport calls; recorded in the
 * audit log.
 */
export async function acknowledgeAlerts(
  deps: Pick<DomainDeps, 'store' | 'clock'>,
  principal: Principal,
  input: { ids?: readonly number[]; incidentId?: string; note?: string | null },
): Promise<AlertWorkItem[]> {
  if (principal.kind === 'user' && !mayDo(principal.role, 'fieldService')) {
    throw forbidden('Only Installers and Managers may acknowledge alerts.');
  }
  const problems: FieldProblem[] = [];
  const note = input.note ?? null;
  if (note !== null && note.length > acknowledgementLimits.noteMaxLength) {
    problems.push(fieldProblem('note', `must be at most ${acknowledgementLimits.noteMaxLength} characters`));
  }
  let selection: AlertSelection | undefined;
  if ((input.ids === undefined) === (input.incidentId === undefined)) {
    problems.push(fieldProblem('ids', 'or incidentId must be given, not both'));
  } else if (input.ids !== undefined) {
    const ids = [...new Set(input.ids)];
    if (ids.length === 0 || ids.length > acknowledgementLimits.maxIds || !ids.every((id) => Number.isSafeInteger(id) && id > 0)) {
      problems.push(fieldProblem('ids', `must be 1 to ${acknowledgementLimits.maxIds} positive integers`));
    }
    selection = { ids };
  } else if (input.incidentId !== undefined) {
    if (input.incidentId.length === 0 || input.incidentId.length > 200)
      problems.push(fieldProblem('incidentId', 'must be 1 to 200 characters'));
    selection = { incidentId: input.incidentId };
  }
  if (problems.length > 0 || !selection) throw validationFailed(problems);
  const selected = await deps.store.alerts.select(principal.organizationId, selection);
  if ('ids' in selection) {
    // All or none: an unknown id (or another organization's, which answers the same) leaves every period as it was.
    const found = new Set(selected.map((period) => period.id));
    const missing = selection.ids.filter((id) => !found.has(id));
    if (missing.length > 0) throw notFound(`No alert period ${missing.join(', ')}.`);
  } else if (selected.length === 0) {
    throw notFound(`No incident ${selection.incidentId}.`);
  }
  const target = 'ids' in selection ? { type: 'alert', id: selection.ids.join(',') } : { type: 'incident', id: selection.incidentId };
  return audited(deps, principal, { organizationId: principal.organizationId, action: 'alert.acknowledge', target }, async () => {
    await deps.store.alerts.acknowledge(principal.organizationId, selection, { by: principal.responsible, at: deps.clock.now(), note });
    const acknowledged = await deps.store.alerts.select(principal.organizationId, selection);
    return { result: acknowledged, details: auditFields({ periods: acknowledged.length, note }) };
  });
}

function encodeAlertCursor(period: AlertWorkItem): string {
  return Buffer.from(`a:${period.openedAt}:${period.id}`, 'utf8').toString('base64url');
}

/** Where a cursor continues, or null when it is not a cursor of ours. */
function decodeAlertCursor(cursor: string): { openedAt: number; id: number } | null {
  const match = /^a:(\d{1,16}):(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return null;
  const openedAt = Number(match[1]);
  const id = Number(match[2]);
  return Number.isSafeInteger(openedAt) && Number.isSafeInteger(id) ? { openedAt, id } : null;
}
