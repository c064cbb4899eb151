import type { DomainDeps } from '../domain-deps.js';
import { validationFailed, type FieldProblem } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { requireThing } from '../things/thing-access.js';
import { alertTypes, type AlertType } from './alert-types.js';
import { formatLocalDateTime } from './local-time.js';

/** The default window of a thing's alert list: the last 7 days (SPEC section 3). */
export const defaultAlertWindowS = 7 * 24 * 3600;

export interface AlertRecord {
  tuid: string;
  /** A built-in type, or a rule's name (SPEC section 13). */
  alert_type: AlertType | string;
  /** Periods overlapping the window, oldest first; `to` null while active. Local date-times in ALERT_TIMEZONE. */
  alerts: { from: string; to: string | null }[];
}

/**
 * A thing's alerts: one record per type with a period overlapping `from`..`to` (Unix seconds, inclusive,
 * default the last 7 days). NOT_FOUND for a thing the caller cannot see.
 */
export async function listThingAlerts(
  deps: Pick<DomainDeps, 'store' | 'clock'> & { timeZone: string },
  principal: Principal,
  input: { tuid: string; from?: number; to?: number },
): Promise<AlertRecord[]> {
  const nowS = Math.floor(deps.clock.now() / 1000);
  const to = input.to ?? nowS;
  const from = input.from ?? to - defaultAlertWindowS;
  const problems: FieldProblem[] = [];
  if (from > to) problems.push({ field: 'from', message: 'from must not be after to' });
  if (problems.length > 0) throw validationFailed(problems);
  await requireThing(deps, principal, input.tuid);
  const periods = await deps.store.alerts.listOverlapping(input.tuid, from * 1000, to * 1000 + 999);
  // The built-in types first, in their fixed order, then the rules' names as their periods first appear.
  const types = [...new Set([...alertTypes, ...periods.map((p) => p.alertType as string)])];
  return types
    .map((type) => ({
      tuid: input.tuid,
      alert_type: type,
      alerts: periods
        .filter((p) => p.alertType === type)
        .map((p) => ({
          from: formatLocalDateTime(p.openedAt, deps.timeZone),
          to: p.closedAt === null ? null : formatLocalDateTime(p.closedAt, deps.timeZone),
        })),
    }))
    .filter((record) => record.alerts.length > 0);
}

/** TUIDs of the caller's things with an active alert, sorted. */
export async function listAlertingTuids(deps: Pick<DomainDeps, 'store'>, principal: Principal): Promise<string[]> {
  return deps.store.alerts.listAlertingTuids(principal.organizationId);
}

/** Active alert periods of the caller's organization (a thing with two active kinds counts twice). */
export async function countActiveAlerts(deps: Pick<DomainDeps, 'store'>, principal: Principal): Promise<number> {
  return deps.store.alerts.countActive(principal.organizationId);
}
