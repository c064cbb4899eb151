import { sql, type Kysely, type RawBuilder } from 'kysely';
import { builtInSeverity, type AlertChange, type AlertType } from '../domain/alerts/alert-types.js';
import type { Dialect } from './database.js';
import { portableSql } from './portable-sql.js';
import type { Schema } from './schema.js';
import { writeAlertOutbox, type WebhookOutboxHolder } from './webhook-outbox-writer.js';

/** What the silence rules need: now, the timeout and the statuses that raise no connection alerts. */
export interface SilenceInput {
  now: number;
  timeoutMs: number;
  exemptStatuses: readonly string[];
}

export type AlertEvaluationStore = ReturnType<typeof alertEvaluationStore>;

const device: AlertType = 'device connection lost';
const gateway: AlertType = 'gateway connection lost';
const battery: AlertType = 'battery low';

interface ChangeRow {
  organization_id: string;
  tuid: string;
  alert_type: string;
  gateway_tuid: string | null;
  opened_at: number;
  closed_at: number | null;
}

/**
 * The alert engine's writes: the rules of `src/domain/alerts/alert-rules.ts` as set-based SQL, a few statements
 * per run over all things, the same text on SQLite and PostgreSQL (only `greatest` is spelled per dialect: portable-sql.ts).
 *
 * Every open is `insert ... select ... where not exists (an active one) on conflict do nothing`: the partial unique
 * index `alerts_one_active` is the arbiter when two writers race, so a thing never has two active periods of one
 * type. A new period never starts before the previous one of its type ended. Every close only touches active
 * periods and never ends one before it began. Each statement returns exactly the periods it changed, so the
 * engine emits events only for real changes.
 */
export function alertEvaluationStore(db: Kysely<Schema>, dialect: Dialect, outbox: WebhookOutboxHolder = {}) {
  const { greatest, ms } = portableSql(dialect);
  const list = (values: readonly string[]) => sql.join(values.map((value) => sql`${value}`));
  const returning = sql`returning organization_id, tuid, alert_type, gateway_tuid, opened_at, closed_at`;
  const previousEnd = (type: AlertType) =>
    sql`coalesce((select max(p.closed_at) from alerts p where p.tuid = t.tuid and p.alert_type = ${type}), 0)`;
  const noneActive = (type: AlertType) =>
    sql`not exists (select 1 from alerts a where a.tuid = t.tuid and a.alert_type = ${type} and a.closed_at is null)`;
  // What a period records of its opening (SPEC section 16): severity, the thing's group and gateway, the value, incident.
  const openingColumns = sql`severity, group_id, gateway_tuid, value, incident_id`;
  const severityOf = (type: AlertType) => sql`${builtInSeverity[type]}`;
  // One gateway's silence is one incident: every period it opens names the gateway and its last arrival, which stays
  // the same for as long as the silence lasts (whichever run opens a period) and differs for the next silence.
  const gatewayIncident = sql`'gateway:' || g.gateway_tuid || ':' || cast(g.heard_at as varchar(20))`;
  // Each statement with the webhook deliveries of the periods it changed, in one transaction (the outbox); a plain
  // statement while no endpoint wants alerts.
  const run = async (query: RawBuilder<ChangeRow>): Promise<AlertChange[]> => {
    if (!outbox.targets) return (await query.execute(db)).rows.map(toChange);
    return db.transaction().execute(async (trx) => {
      const changes = (await query.execute(trx)).rows.map(toChange);
      await writeAlertOutbox(trx, outbox, changes);
      return changes;
    });
  };
  // Per gateway and organization, the latest arrival through it: a gateway is heard whenever any thing is.
  const gatewaysCte = sql`gateways as (
    select organization_id, last_heard_gateway_tuid as gateway_tuid, max(last_heard_at) as heard_at
    from things where last_heard_gateway_tuid is not null
    group by organization_id, last_heard_gateway_tuid)`;

  return {
    /** Opens `device connection lost` on every silent thing; the period starts when its silence exceeded the timeout. */
    openDeviceSilence(input: SilenceInput): Promise<AlertChange[]> {
      return run(sql<ChangeRow>`
        insert into alerts (organization_id, tuid, alert_type, opened_at, ${openingColumns})
        select t.organization_id, t.tuid, ${device}, ${greatest(sql`t.last_heard_at + ${ms(input.timeoutMs)}`, previousEnd(device))},
          ${severityOf(device)}, t.group_id, t.last_heard_gateway_tuid, null, null
        from things t
        where t.last_heard_at < ${ms(input.now - input.timeoutMs)}
          and t.installation_status not in (${list(input.exemptStatuses)})
          and ${noneActive(device)}
        on conflict do nothing ${returning}`);
    },

    /** Opens `gateway connection lost` on every thing whose last gateway is silent, from when its silence began. */
    openGatewaySilence(input: SilenceInput): Promise<AlertChange[]> {
      return run(sql<ChangeRow>`
        with ${gatewaysCte}
        insert into alerts (organization_id, tuid, alert_type, opened_at, ${openingColumns})
        select t.organization_id, t.tuid, ${gateway}, ${greatest(sql`g.heard_at + ${ms(input.timeoutMs)}`, previousEnd(gateway))},
          ${severityOf(gateway)}, t.group_id, t.last_heard_gateway_tuid, null, ${gatewayIncident}
        from things t
        join gateways g on g.organization_id = t.organization_id and g.gateway_tuid = t.last_heard_gateway_tuid
        where g.heard_at < ${ms(input.now - input.timeoutMs)}
          and t.installation_status not in (${list(input.exemptStatuses)})
          and ${noneActive(gateway)}
        on conflict do nothing ${returning}`);
    },

    /**
     * Closes `device connection lost` where the thing was heard since the period began (at that arrival), or is
     * now retired or quarantined (at `now`). Ingest closes these at once; this catches what it could not see.
     */
    closeDeviceSilence(input: SilenceInput): Promise<AlertChange[]> {
      const heard = sql`(t.last_heard_at >= a.opened_at or t.last_heard_at >= ${ms(input.now - input.timeoutMs)})`;
      return run(sql<ChangeRow>`
        with closing as (
          select a.id as id, case when ${heard} then ${greatest(sql`t.last_heard_at`, sql`a.opened_at`)} else ${ms(input.now)} end as closed_at
          from alerts a join things t on t.tuid = a.tuid
          where a.alert_type = ${device} and a.closed_at is null
            and (${heard} or t.installation_status in (${list(input.exemptStatuses)})))
        update alerts set closed_at = (select c.closed_at from closing c where c.id = alerts.id)
        where alerts.id in (select id from closing) and alerts.closed_at is null
        ${returning}`);
    },

    /**
     * Closes `gateway connection lost` where the thing was heard through another gateway (at that arrival), its
     * gateway was heard since the period began (at the gateway's latest arrival), or the thing is now retired or
     * quarantined (at `now`). Ingest closes these at once; this catches what it could not see.
     */
    closeGatewaySilence(input: SilenceInput): Promise<AlertChange[]> {
      const cutoff = ms(input.now - input.timeoutMs);
      const elsewhere = sql`(a.gateway_tuid is not null and t.last_heard_gateway_tuid is distinct from a.gateway_tuid)`;
      const gatewayHeard = sql`(g.heard_at >= a.opened_at or g.heard_at >= ${cutoff})`;
      return run(sql<ChangeRow>`
        with ${gatewaysCte},
        closing as (
          select a.id as id, case
              when ${elsewhere} then ${greatest(sql`t.last_heard_at`, sql`a.opened_at`)}
              when ${gatewayHeard} then ${greatest(sql`g.heard_at`, sql`a.opened_at`)}
              else ${ms(input.now)} end as closed_at
          from alerts a
          join things t on t.tuid = a.tuid
          left join gateways g on g.organization_id = a.organization_id and g.gateway_tuid = coalesce(a.gateway_tuid, t.last_heard_gateway_tuid)
          where a.alert_type = ${gateway} and a.closed_at is null
            and (${elsewhere} or ${gatewayHeard} or t.installation_status in (${list(input.exemptStatuses)})))
        update alerts set closed_at = (select c.closed_at from closing c where c.id = alerts.id)
        where alerts.id in (select id from closing) and alerts.closed_at is null
        ${returning}`);
    },

    /** Opens `battery low` at `at` on things (all, or those in `tuids`) whose level is below `lowPercent`. */
    openBatteryLow(input: { at: number; lowPercent: number; tuids?: readonly string[] }): Promise<AlertChange[]> {
      const only = input.tuids ? sql`and t.tuid in (${list(input.tuids)})` : sql``;
      return run(sql<ChangeRow>`
        insert into alerts (organization_id, tuid, alert_type, opened_at, ${openingColumns})
        select t.organization_id, t.tuid, ${battery}, ${greatest(ms(input.at), previousEnd(battery))},
          ${severityOf(battery)}, t.group_id, t.last_heard_gateway_tuid, t.battery_level, null
        from things t
        where t.battery_level < ${input.lowPercent} ${only} and ${noneActive(battery)}
        on conflict do nothing ${returning}`);
    },

    /** Closes `battery low` at `at` on things (all, or those in `tuids`) whose level is `okPercent` or more. */
    closeBatteryLow(input: { at: number; okPercent: number; tuids?: readonly string[] }): Promise<AlertChange[]> {
      const only = input.tuids ? sql`and t.tuid in (${list(input.tuids)})` : sql``;
      return run(sql<ChangeRow>`
        update alerts set closed_at = ${greatest(ms(input.at), sql`opened_at`)}
        where alert_type = ${battery} and closed_at is null
          and tuid in (select t.tuid from things t where t.battery_level >= ${input.okPercent} ${only})
        ${returning}`);
    },

    /**
     * Ingest saw `tuids` and `gateways` at `at`: closes the device and gateway alerts of those things (a thing
     * heard through any gateway is connected) and the gateway alerts of every thing behind those gateways.
     */
    closeHeard(input: {
      at: number;
      tuids: readonly string[];
      gateways: readonly { organizationId: string; gatewayTuid: string }[];
    }): Promise<AlertChange[]> {
      const conditions: RawBuilder<unknown>[] = [];
      if (input.tuids.length > 0) conditions.push(sql`(alert_type in (${list([device, gateway])}) and tuid in (${list(input.tuids)}))`);
      for (const [organizationId, gatewayTuids] of groupByOrganization(input.gateways)) {
        conditions.push(sql`(alert_type = ${gateway} and organization_id = ${organizationId} and gateway_tuid in (${list(gatewayTuids)}))`);
      }
      if (conditions.length === 0) return Promise.resolve([]);
      return run(sql<ChangeRow>`
        update alerts set closed_at = ${greatest(ms(input.at), sql`opened_at`)}
        where closed_at is null and (${sql.join(conditions, sql` or `)})
        ${returning}`);
    },

    /** Every active period of the given types (uses the partial index on active periods). */
    async listActive(types: readonly AlertType[]): Promise<AlertChange[]> {
      const rows = await db
        .selectFrom('alerts')
        .select(['organization_id', 'tuid', 'alert_type', 'gateway_tuid', 'opened_at', 'closed_at'])
        .where('closed_at', 'is', null)
        .where('alert_type', 'in', types)
        .execute();
      return rows.map(toChange);
    },
  };
}

function groupByOrganization(gateways: readonly { organizationId: string; gatewayTuid: string }[]): Map<string, string[]> {
  const byOrganization = new Map<string, string[]>();
  for (const { organizationId, gatewayTuid } of gateways) {
    const tuids = byOrganization.get(organizationId) ?? [];
    tuids.push(gatewayTuid);
    byOrganization.set(organizationId, tuids);
  }
  return byOrganization;
}

function toChange(row: ChangeRow): AlertChange {
  return {
    organizationId: row.organization_id,
    tuid: row.tuid,
    alertType: row.alert_type as AlertType,
    gatewayTuid: row.alert_type === gateway ? row.gateway_tuid : null,
    openedAt: Number(row.opened_at),
    closedAt: row.closed_at === null ? null : Number(row.closed_at),
  };
}
