import type { Principal } from '../auth/principal.js';
import { mayDo } from '../auth/permissions.js';
import type { Store } from '../../store/store.js';
import { forbidden, validationFailed, type FieldProblem } from '../errors.js';
import { verifyChain } from './audit-chain.js';
import type { AuditEntry, AuditVerification } from './audit-types.js';

/** `limit` of an audit page: 1 to 1000, 100 when absent. */
export const auditListLimit = { min: 1, max: 1000, default: 100 } as const;

export interface AuditListInput {
  /** Unix seconds or ISO 8601, inclusive. */
  from?: string | number;
  to?: string | number;
  /** The actor's id or label. */
  actor?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  limit?: number;
  cursor?: string;
}

export interface AuditPage {
  entries: AuditEntry[];
  nextCursor: string | null;
}

type AuditReadDeps = { store: Pick<Store, 'audit'> };

/** Who may read an organization's log: its API clients and its Managers (readAudit). FORBIDDEN for anyone else. */
export function requireAuditReader(principal: Principal): void {
  if (principal.kind === 'user' && !mayDo(principal.role, 'readAudit')) throw forbidden('Only Managers read the audit log.');
}

/** A page of the caller's organization's log, newest first, filtered (SPEC 14). */
export async function listAuditEntries(deps: AuditReadDeps, principal: Principal, input: AuditListInput): Promise<AuditPage> {
  requireAuditReader(principal);
  const problems: FieldProblem[] = [];
  const from = timeOf('from', input.from, problems);
  const to = timeOf('to', input.to, problems);
  const limit = input.limit ?? auditListLimit.default;
  if (!Number.isInteger(limit) || limit < auditListLimit.min || limit > auditListLimit.max) {
    problems.push({ field: 'limit', message: `limit must be an integer from ${auditListLimit.min} to ${auditListLimit.max}` });
  }
  let before: number | undefined;
  if (input.cursor !== undefined) {
    before = decodeCursor(input.cursor);
    if (before === undefined) problems.push({ field: 'cursor', message: 'not a cursor of this list' });
  }
  if (problems.length > 0) throw validationFailed(problems);
  const entries = await deps.store.audit.list({
    organizationId: principal.organizationId,
    ...(from !== undefined && { from }),
    ...(to !== undefined && { to: to + (isSeconds(input.to) ? 999 : 0) }),
    ...(input.actor !== undefined && { actor: input.actor }),
    ...(input.action !== undefined && { action: input.action }),
    ...(input.targetType !== undefined && { targetType: input.targetType }),
    ...(input.targetId !== undefined && { targetId: input.targetId }),
    ...(before !== undefined && { before }),
    limit: limit + 1,
  });
  const more = entries.length > limit;
  const page = more ? entries.slice(0, limit) : entries;
  return { entries: page, nextCursor: more ? encodeCursor(page[page.length - 1]!.id) : null };
}

/** Checks an organization's chain (SPEC 14). */
export async function verifyAuditChain(deps: AuditReadDeps, organizationId: string): Promise<AuditVerification> {
  return verifyChain(await deps.store.audit.head(organizationId), deps.store.audit.pages(organizationId));
}

/** The caller's organization's whole log, oldest first, a page at a time (GET /audit/export). */
export function exportAuditEntries(deps: AuditReadDeps, principal: Principal): AsyncGenerator<AuditEntry[]> {
  requireAuditReader(principal);
  return deps.store.audit.pages(principal.organizationId, 1000);
}

function isSeconds(value: string | number | undefined): boolean {
  return typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value.trim()));
}

/** Unix seconds or ISO 8601 as milliseconds; a problem named otherwise. */
function timeOf(field: string, value: string | number | undefined, problems: FieldProblem[]): number | undefined {
  if (value === undefined) return undefined;
  if (isSeconds(value)) return Number(value) * 1000;
  const ms = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    problems.push({ field, message: `${field} must be Unix seconds or an ISO 8601 date-time` });
    return undefined;
  }
  return ms;
}

function encodeCursor(id: number): string {
  return Buffer.from(`a:${id}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = text.startsWith('a:') ? Number(text.slice(2)) : NaN;
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}
