import type { Kysely, Selectable } from 'kysely';
import type { AlertPeriod, AlertType } from '../domain/alerts/alert-types.js';
import type { AlertsTable, Schema } from './schema.js';

export type AlertsStore = ReturnType<typeof alertsStore>;

export function alertsStore(db: Kysely<Schema>) {
  return {
    /** Periods of one thing overlapping [fromMs, toMs], oldest first. */
    async listOverlapping(tuid: string, fromMs: number, toMs: number): Promise<AlertPeriod[]> {
      const rows = await db
        .selectFrom('alerts')
        .selectAll()
        .where('tuid', '=', tuid)
        .where('opened_at', '<=', toMs)
        .where((eb) => eb.or([eb('closed_at', 'is', null), eb('closed_at', '>=', fromMs)]))
        .orderBy('opened_at')
        .orderBy('id')
        .execute();
      return rows.map(toAlertPeriod);
    },
    async listAlertingTuids(organizationId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('alerts')
        .select('tuid')
        .distinct()
        .where('organization_id', '=', organizationId)
        .where('closed_at', 'is', null)
        .orderBy('tuid')
        .execute();
      return rows.map((row) => row.tuid);
    },
    async countActive(organizationId: string): Promise<number> {
      const row = await db
        .selectFrom('alerts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', organizationId)
        .where('closed_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** Closes the active period of one type on one thing; false when none was active. */
    async close(tuid: string, alertType: AlertType, closedAt: number): Promise<boolean> {
      const result = await db
        .updateTable('alerts')
        .set({ closed_at: closedAt })
        .where('tuid', '=', tuid)
        .where('alert_type', '=', alertType)
        .where('closed_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    /**
     * Opens a period; false when one of that type is already active on the thing (the partial unique index
     * `alerts_one_active` decides). The alert engine writes set-based (alert-evaluation-store.ts); this is for
     * single periods.
     */
    async open(period: Omit<AlertPeriod, 'closedAt'> & { gatewayTuid?: string | null }): Promise<boolean> {
      const result = await db
        .insertInto('alerts')
        .values({
          organization_id: period.organizationId,
          tuid: period.tuid,
          alert_type: period.alertType,
          gateway_tuid: period.gatewayTuid ?? null,
          opened_at: period.openedAt,
          closed_at: null,
        })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
  };
}

function toAlertPeriod(row: Selectable<AlertsTable>): AlertPeriod {
  return {
    organizationId: row.organization_id,
    tuid: row.tuid,
    alertType: row.alert_type as AlertType,
    openedAt: row.opened_at,
    closedAt: row.closed_at,
  };
}
