/** An alert period as the studio reads it (GraphQL `alertPeriods`). */
export interface AlertPeriod {
  id: string;
  tuid: string;
  alertType: string;
  severity: string | null;
  /** The rule of a rule's period; null for built-in alerts. */
  ruleId: string | null;
  value: number | null;
  fromTs: number;
  toTs: number | null;
  gatewayTuid: string | null;
  groupId: string;
  incidentId: string | null;
  acknowledged: { by: string; at: number; note: string | null } | null;
}

/** One row of the alerts page: a period alone, or every period of one incident (a gateway's silence) folded. */
export interface AlertRow {
  key: string;
  periods: AlertPeriod[];
  incidentId: string | null;
}

/**
 * Folds a page of periods (newest first) into rows: the periods of one incident become one row where its first
 * period stands, so a gateway with 500 things behind it is one line.
 */
export function foldIncidents(periods: readonly AlertPeriod[]): AlertRow[] {
  const rows: AlertRow[] = [];
  const byIncident = new Map<string, AlertRow>();
  for (const period of periods) {
    if (period.incidentId === null) {
      rows.push({ key: `p:${period.id}`, periods: [period], incidentId: null });
      continue;
    }
    const row = byIncident.get(period.incidentId);
    if (row) row.periods.push(period);
    else {
      const created: AlertRow = { key: `i:${period.incidentId}`, periods: [period], incidentId: period.incidentId };
      byIncident.set(period.incidentId, created);
      rows.push(created);
    }
  }
  return rows;
}

/** Whether every period of a row was acknowledged. */
export function rowAcknowledged(row: AlertRow): boolean {
  return row.periods.every((period) => period.acknowledged !== null);
}
