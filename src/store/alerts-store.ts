import type { Kysely, Selectable } from 'kysely';
import type { Dialect } from './database.js';
import { builtInSeverity, type AlertPeriod, type AlertSeverity, type AlertType } from '../domain/alerts/alert-types.js';
import type { AlertAcknowledgement, AlertSelection, AlertWorkFilter, AlertWorkItem } from '../domain/alerts/alert-work-types.js';
import type { AlertsTable, Schema } from './schema.js';

export type AlertsStore = ReturnType<typeof alertsStore>;

export function alertsStore(db: Kysely<Schema>, dialect: Dialect) {
  return {
    /**
     * One page of an organization's periods, newest opening first (ties: highest id first). Walks the index
     * `alerts_organization_opened`, or its partial twin of the open periods for `state: open`.
     */
    async listWork(organizationId: string, filter: AlertWorkFilter): Promise<AlertWorkItem[]> {
      let query = db.selectFrom('alerts').selectAll().where('organization_id', '=', organizationId);
      if (filter.state === 'open') query = query.where('closed_at', 'is', null);
      else if (filter.state === 'closed') query = query.where('closed_at', 'is not', null);
      if (filter.alertType !== undefined) query = query.where('alert_type', '=', filter.alertType);
      if (filter.severity !== undefined) query = query.where('severity', '=', filter.severity);
      if (filter.groupId === null) query = query.where('group_id', 'is', null);
      else if (filter.groupId !== undefined) query = query.where('group_id', '=', filter.groupId);
      if (filter.tuid !== undefined) query = query.where('tuid', '=', filter.tuid);
      if (filter.gatewayTuid !== undefined) query = query.where('gateway_tuid', '=', filter.gatewayTuid);
      if (filter.incidentId !== undefined) query = query.where('incident_id', '=', filter.incidentId);
      if (filter.acknowledged !== undefined) query = query.where('acknowledged_at', filter.acknowledged ? 'is not' : 'is', null);
      if (filter.toMs !== undefined) query = query.where('opened_at', '<=', filter.toMs);
      const fromMs = filter.fromMs;
      if (fromMs !== undefined) query = query.where((eb) => eb.or([eb('closed_at', 'is', null), eb('closed_at', '>=', fromMs)]));
      const after = filter.after;
      if (after) {
        query = query.where((eb) =>
          eb.or([eb('opened_at', '<', after.openedAt), eb.and([eb('opened_at', '=', after.openedAt), eb('id', '<', after.id)])]),
        );
      }
      const ordered = query.orderBy('opened_at', 'desc').orderBy('id', 'desc').limit(filter.limit);
      if (filter.state !== 'open' || dialect !== 'sqlite') return (await ordered.execute()).map(toWorkItem);
      // SQLite takes `closed_at is null` for an equality that matches about one row (its statistics count distinct
      // closing times), so it read every open period through another index and sorted them for each page (a
      // second page: median 17 ms, p99 85 ms at 3,000 open periods). Named, the partial index gives them in order.
      const compiled = ordered.compile();
      const named = compiled.sql.replace('from "alerts"', 'from "alerts" indexed by "alerts_open_by_organization"');
      const { rows } = await db.executeQuery<Selectable<AlertsTable>>({ ...compiled, sql: named });
      return rows.map(toWorkItem);
    },
    /** The selected periods of an organization, newest first; an empty list when none matched. */
    async select(organizationId: string, selection: AlertSelection): Promise<AlertWorkItem[]> {
      const query = db.selectFrom('alerts').selectAll().where('organization_id', '=', organizationId);
      const scoped =
        'ids' in selection ? query.where('id', 'in', [...selection.ids]) : query.where('incident_id', '=', selection.incidentId);
      const rows = await scoped.orderBy('opened_at', 'desc').orderBy('id', 'desc').execute();
      return rows.map(toWorkItem);
    },
    /** Marks the selected periods of an organization seen, those not yet acknowledged (the first one stands). */
    async acknowledge(organizationId: string, selection: AlertSelection, acknowledgement: AlertAcknowledgement): Promise<void> {
      const update = db
        .updateTable('alerts')
        .set({ acknowledged_by: acknowledgement.by, acknowledged_at: acknowledgement.at, acknowledgement_note: acknowledgement.note })
        .where('organization_id', '=', organizationId)
        .where('acknowledged_at', 'is', null);
      await (
        'ids' in selection ? update.where('id', 'in', [...selection.ids]) : update.where('incident_id', '=', selection.incidentId)
      ).execute();
    },
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
          severity: builtInSeverity[period.alertType],
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

function toWorkItem(row: Selectable<AlertsTable>): AlertWorkItem {
  return {
    id: Number(row.id),
    organizationId: row.organization_id,
    tuid: row.tuid,
    alertType: row.alert_type,
    severity: row.severity as AlertSeverity | null,
    ruleId: row.rule_id,
    value: row.value === null ? null : Number(row.value),
    openedAt: Number(row.opened_at),
    closedAt: row.closed_at === null ? null : Number(row.closed_at),
    gatewayTuid: row.gateway_tuid,
    groupId: row.group_id,
    incidentId: row.incident_id,
    acknowledged:
      row.acknowledged_at === null || row.acknowledged_by === null
        ? null
        : { by: row.acknowledged_by, at: Number(row.acknowledged_at), note: row.acknowledgement_note },
  };
}
