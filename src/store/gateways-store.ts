import { sql, type Kysely } from 'kysely';
import type { GatewayListFilter, GatewayRow } from '../domain/gateways/gateway-types.js';
import type { Dialect } from './database.js';
import { portableSql } from './portable-sql.js';
import type { Schema } from './schema.js';
import { escapeLike } from './things-store.js';

export type GatewaysStore = ReturnType<typeof gatewaysStore>;

interface Row {
  gateway_tuid: string;
  last_seen: number | string;
  thing_count: number | string;
  things_silent: number | string | null;
  mqtt_username: string | null;
}

/**
 * Gateways as the messages name them: folded from the things last heard through each (`things.last_heard_*`, the
 * columns the alert engine reads), with the credential each last published with from `gateways`.
 */
export function gatewaysStore(db: Kysely<Schema>, dialect: Dialect) {
  const { ms } = portableSql(dialect);
  return {
    /**
     * One page of an organization's gateways by TUID, each folded from its things. PostgreSQL streams the fold in
     * gateway order from the index `things_organization_gateway` and stops after the page. SQLite folded every
     * thing of the organization before it could order and cut (100,000 things for a page of 100 gateways), so there
     * the page's gateways are picked first from that index and only their things are folded, read as the span
     * between the page's first and last gateway. A state filter needs each gateway's last sighting before it can
     * pick, so with one SQLite folds every gateway (as before).
     */
    async list(organizationId: string, filter: GatewayListFilter): Promise<GatewayRow[]> {
      const picked = [sql`organization_id = ${organizationId}`, sql`last_heard_gateway_tuid is not null`];
      if (filter.q) picked.push(sql`lower(last_heard_gateway_tuid) like ${`%${escapeLike(filter.q.toLowerCase())}%`} escape '\\'`);
      if (filter.gatewayTuid !== undefined) picked.push(sql`last_heard_gateway_tuid = ${filter.gatewayTuid}`);
      if (filter.afterTuid !== undefined) picked.push(sql`last_heard_gateway_tuid > ${filter.afterTuid}`);
      const state = [sql`true`];
      if (filter.state === 'silent') state.push(sql`s.last_seen < ${ms(filter.gatewaySilentBefore)}`);
      if (filter.state === 'online') state.push(sql`s.last_seen >= ${ms(filter.gatewaySilentBefore)}`);
      const folded = sql`max(last_heard_at) as last_seen, count(*) as thing_count,
        sum(case when last_heard_at < ${ms(filter.thingSilentBefore)} then 1 else 0 end) as things_silent`;
      const pageLimit = filter.state === undefined ? sql`limit ${filter.limit}` : sql``;
      const gatewaysFolded =
        dialect === 'postgres'
          ? sql`s as (
              select last_heard_gateway_tuid as gateway_tuid, ${folded} from things
              where ${sql.join(picked, sql` and `)}
              group by last_heard_gateway_tuid)`
          : sql`page as (
              select distinct last_heard_gateway_tuid as gateway_tuid from things
              where ${sql.join(picked, sql` and `)}
              order by last_heard_gateway_tuid
              ${pageLimit}),
            s as (
              select last_heard_gateway_tuid as gateway_tuid, ${folded} from things
              where organization_id = ${organizationId} and last_heard_gateway_tuid in (select gateway_tuid from page)
                and last_heard_gateway_tuid between (select min(gateway_tuid) from page) and (select max(gateway_tuid) from page)
              group by last_heard_gateway_tuid)`;
      const { rows } = await sql<Row>`
        with ${gatewaysFolded}
        select s.gateway_tuid, s.last_seen, s.thing_count, s.things_silent, g.mqtt_username
        from s left join gateways g on g.organization_id = ${organizationId} and g.gateway_tuid = s.gateway_tuid
        where ${sql.join(state, sql` and `)}
        order by s.gateway_tuid
        limit ${filter.limit}`.execute(db);
      return rows.map((row) => ({
        gatewayTuid: row.gateway_tuid,
        lastSeen: Number(row.last_seen),
        thingCount: Number(row.thing_count),
        thingsSilent: Number(row.things_silent ?? 0),
        mqttUsername: row.mqtt_username,
      }));
    },
    /** Records that a gateway published with a credential at `at` (insert or update). */
    async recordSighting(organizationId: string, gatewayTuid: string, mqttUsername: string | null, at: number): Promise<void> {
      await db
        .insertInto('gateways')
        .values({ organization_id: organizationId, gateway_tuid: gatewayTuid, mqtt_username: mqttUsername, seen_at: at })
        .onConflict((oc) => oc.columns(['organization_id', 'gateway_tuid']).doUpdateSet({ mqtt_username: mqttUsername, seen_at: at }))
        .execute();
    },
  };
}
