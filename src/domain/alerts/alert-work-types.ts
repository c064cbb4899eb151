import type { AlertSeverity } from './alert-types.js';

/**
 * One alert period as a work item (SPEC section 16). `alertType` is a string: built-in types and, once rule alerts
 * land, theirs. Times in milliseconds on the platform's clock.
 */
export interface AlertWorkItem {
  id: number;
  organizationId: string;
  tuid: string;
  alertType: string;
  severity: AlertSeverity | null;
  ruleId: string | null;
  value: number | null;
  openedAt: number;
  closedAt: number | null;
  /** The thing's gateway and group when the period opened (null: none known, or in no group). */
  gatewayTuid: string | null;
  groupId: string | null;
  incidentId: string | null;
  acknowledged: AlertAcknowledgement | null;
}

export interface AlertAcknowledgement {
  /** As section 3's `responsible`: the client id or the user's e-mail. */
  by: string;
  at: number;
  note: string | null;
}

/** The store's filter of the alerts list; every field narrows. */
export interface AlertWorkFilter {
  state?: 'open' | 'closed';
  alertType?: string;
  severity?: string;
  /** null: periods of things in no group. */
  groupId?: string | null;
  tuid?: string;
  gatewayTuid?: string;
  incidentId?: string;
  acknowledged?: boolean;
  /** Periods overlapping [fromMs, toMs]. */
  fromMs?: number;
  toMs?: number;
  /** Continue after this period in the list's order (newest opening first, then highest id). */
  after?: { openedAt: number; id: number };
  limit: number;
}

/** Which periods an acknowledgement marks: some by id, or every period of an incident. */
export type AlertSelection = { ids: readonly number[] } | { incidentId: string };
