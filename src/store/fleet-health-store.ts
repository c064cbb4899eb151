import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { AlertType } from '../domain/alerts/alert-types.js';
import {
  batteryBuckets,
  connectionAlertTypes,
  type BatteryBucketLabel,
  type FleetHealthQuery,
  type FleetHealthRows,
} from '../domain/fleet/fleet-health-types.js';
import type { InstallationStatus } from '../domain/things/thing-types.js';
import type { Dialect } from './database.js';
import { portableSql } from './portable-sql.js';
import type { Schema } from './schema.js';
import type { SqliteReaderPool } from './sqlite-reader-pool.js';

export type FleetHealthStore = ReturnType<typeof fleetHealthStore>;

const gatewayLost: AlertType = 'gateway connection lost';

/**
 * The fleet overview's reads: a handful of set-based statements per call (GROUP BY over the organization's things
 * and active alerts), the same text on SQLite and PostgreSQL but for `greatest`/`least`. Nothing here loops over
 * things: the answer is a few rows per group and the bounded lists.
 */
export function fleetHealthStore(db: Kysely<Schema>, dialect: Dialect, readers?: SqliteReaderPool) {
  const { greatest, least, ms } = portableSql(dialect);
  const connectionTypes = sql.join(connectionAlertTypes.map((type) => sql`${type}`));
  // The bucket of a thing's exact level; bounds and labels are the domain's constants, written as literals so the
  // expression is the same in the select list and the GROUP BY.
  const bucketOf = sql<BatteryBucketLabel>`case when t.battery_level is null then 'unknown' ${sql.join(
    batteryBuckets.map((bucket) =>
      Number.isFinite(bucket.below)
        ? sql`when t.battery_level < ${sql.lit(bucket.below)} then ${sql.lit(bucket.label)}`
        : sql`else ${sql.lit(bucket.label)}`,
    ),
    sql` `,
  )} end`;

  /**
   * The organization's things counted per group, status and battery bucket in one pass; online: without an active
   * connection alert (an anti-join with the active connection alerts, set-based).
   */
  async function thingCounts(q: FleetHealthQuery, rowsOf: RowsOf): Promise<FleetHealthRows['thingCounts']> {
    const rows = await rowsOf(
      sql<{ group_id: string | null; status: string; bucket: BatteryBucketLabel; n: number; online: number }>`
      select t.group_id, t.installation_status as status, ${bucketOf} as bucket, count(*) as n,
        sum(case when c.tuid is null then 1 else 0 end) as online
      from things t
      left join (select distinct tuid from alerts
                 where organization_id = ${q.organizationId} and closed_at is null and alert_type in (${connectionTypes})) c
        on c.tuid = t.tuid
      where t.organization_id = ${q.organizationId}
      group by t.group_id, t.installation_status, ${bucketOf}`.compile(db),
    );
    return rows.map((row) => ({
      groupId: row.group_id,
      status: row.status as InstallationStatus,
      bucket: row.bucket,
      count: Number(row.n),
      online: Number(row.online),
    }));
  }

  /**
   * Per group, how long its installed things were down in [windowStart, now]: each thing's connection-alert periods
   * clipped to the window and merged where they overlap (a gateway and a device alert over the same hours count
   * once), summed. Gaps and islands: a period starts a new island when it begins after every earlier one ended.
   */
  async function downtimeByGroup(q: FleetHealthQuery, rowsOf: RowsOf): Promise<FleetHealthRows['downtimeByGroup']> {
    const rows = await rowsOf(
      sql<{ group_id: string | null; down_ms: number | string }>`
      with clipped as (
        select a.tuid, t.group_id,
          ${greatest(sql`a.opened_at`, ms(q.windowStart))} as s,
          ${least(sql`coalesce(a.closed_at, ${ms(q.now)})`, ms(q.now))} as e
        from alerts a join things t on t.tuid = a.tuid and t.organization_id = a.organization_id
        where a.organization_id = ${q.organizationId} and a.alert_type in (${connectionTypes})
          and t.installation_status = 'installed'
          and a.opened_at < ${ms(q.now)} and (a.closed_at is null or a.closed_at > ${ms(q.windowStart)})),
      ordered as (
        select tuid, group_id, s, e,
          max(e) over (partition by tuid order by s, e rows between unbounded preceding and 1 preceding) as previous_end
        from clipped),
      numbered as (
        select tuid, group_id, s, e,
          sum(case when previous_end >= s then 0 else 1 end) over (partition by tuid order by s, e rows unbounded preceding) as island
        from ordered),
      islands as (select group_id, tuid, island, min(s) as s, max(e) as e from numbered group by group_id, tuid, island)
      select group_id, sum(e - s) as down_ms from islands group by group_id`.compile(db),
    );
    return rows.map((row) => ({ groupId: row.group_id, downMs: Number(row.down_ms) }));
  }

  async function groupIds(q: FleetHealthQuery, rowsOf: RowsOf): Promise<string[]> {
    const rows = await rowsOf(db.selectFrom('groups').select('group_id').where('organization_id', '=', q.organizationId).compile());
    return rows.map((row) => row.group_id);
  }

  async function alerting(q: FleetHealthQuery, rowsOf: RowsOf): Promise<FleetHealthRows['alerting']> {
    const active = db.selectFrom('alerts').where('organization_id', '=', q.organizationId).where('closed_at', 'is', null);
    const [[counts], newest] = await Promise.all([
      rowsOf(active.select((eb) => [eb.fn.count<number>('tuid').distinct().as('things'), eb.fn.countAll<number>().as('alerts')]).compile()),
      rowsOf(
        active
          .select(['tuid', 'alert_type', 'opened_at', 'severity', 'rule_id', 'value'])
          .orderBy('opened_at', 'desc')
          .orderBy('tuid')
          .orderBy('alert_type')
          .limit(q.limit)
          .compile(),
      ),
    ]);
    return {
      thingCount: Number(counts!.things),
      alertCount: Number(counts!.alerts),
      newest: newest.map((row) => ({
        tuid: row.tuid,
        alertType: row.alert_type as AlertType,
        openedAt: row.opened_at,
        severity: row.severity,
        ruleId: row.rule_id,
        value: row.value === null ? null : Number(row.value),
      })),
    };
  }

  async function silentGateways(q: FleetHealthQuery, rowsOf: RowsOf): Promise<FleetHealthRows['silentGateways']> {
    const open = db
      .selectFrom('alerts')
      .where('organization_id', '=', q.organizationId)
      .where('closed_at', 'is', null)
      .where('alert_type', '=', gatewayLost)
      .where('gateway_tuid', 'is not', null);
    const [[count], newest] = await Promise.all([
      rowsOf(open.select((eb) => eb.fn.count<number>('gateway_tuid').distinct().as('n')).compile()),
      rowsOf(
        open
          .select((eb) => ['gateway_tuid', eb.fn.min('opened_at').as('opened_at'), eb.fn.countAll<number>().as('things')])
          .groupBy('gateway_tuid')
          .orderBy('opened_at', 'desc')
          .orderBy('gateway_tuid')
          .limit(q.limit)
          .compile(),
      ),
    ]);
    return {
      count: Number(count!.n),
      newest: newest.map((row) => ({ gatewayTuid: row.gateway_tuid!, openedAt: Number(row.opened_at), thingCount: Number(row.things) })),
    };
  }

  async function lowBattery(q: FleetHealthQuery, rowsOf: RowsOf): Promise<FleetHealthRows['lowBattery']> {
    const low = db.selectFrom('things').where('organization_id', '=', q.organizationId).where('battery_level', '<', q.batteryBelow);
    const [[count], lowest] = await Promise.all([
      rowsOf(low.select((eb) => eb.fn.countAll<number>().as('n')).compile()),
      rowsOf(low.select(['tuid', 'battery_level']).orderBy('battery_level').orderBy('tuid').limit(q.limit).compile()),
    ]);
    return { count: Number(count!.n), lowest: lowest.map((row) => ({ tuid: row.tuid, batteryLevel: row.battery_level! })) };
  }

  return {
    /** Every figure of the fleet overview of one organization, as rows the domain folds into groups and lists. */
    async read(q: FleetHealthQuery): Promise<FleetHealthRows> {
      const reads = readsOf(db, readers);
      const all = Promise.all([
        thingCounts(q, reads.rowsOf),
        downtimeByGroup(q, reads.rowsOf),
        groupIds(q, reads.rowsOf),
        alerting(q, reads.rowsOf),
        silentGateways(q, reads.rowsOf),
        lowBattery(q, reads.rowsOf),
      ]);
      reads.flush();
      const [counts, downtime, groups, active, silent, low] = await all;
      return {
        thingCounts: counts,
        downtimeByGroup: downtime,
        groupIds: groups,
        alerting: active,
        silentGateways: silent,
        lowBattery: low,
      };
    },
  };
}

/** Runs one compiled query and answers its rows. */
type RowsOf = <R>(query: CompiledQuery<R>) => Promise<R[]>;

/**
 * How the overview's queries run: on the query builder's connection, each as it comes; or, with SQLite's reader
 * threads, gathered until `flush` (every query of a read is asked for before its first answer) and run together on
 * one thread, in one snapshot, off the event loop (the downtime's window functions over a year of alerts are not cheap).
 */
function readsOf(db: Kysely<Schema>, readers: SqliteReaderPool | undefined): { rowsOf: RowsOf; flush(): void } {
  if (!readers) return { rowsOf: async (query) => (await db.executeQuery(query)).rows, flush: () => undefined };
  const gathered: { query: CompiledQuery<unknown>; resolve(rows: unknown[]): void; reject(error: unknown): void }[] = [];
  return {
    rowsOf: <R>(query: CompiledQuery<R>) =>
      new Promise<R[]>((resolve, reject) => gathered.push({ query, resolve: resolve as (rows: unknown[]) => void, reject })),
    flush() {
      const statements = gathered.map(({ query }) => ({ text: query.sql, parameters: query.parameters, shape: 'rows' as const }));
      readers.run<unknown[][]>({ kind: 'statements', statements }).then(
        (results) => gathered.forEach((entry, index) => entry.resolve(results[index]!)),
        (error: unknown) => gathered.forEach((entry) => entry.reject(error)),
      );
    },
  };
}
