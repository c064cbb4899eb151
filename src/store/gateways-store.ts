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
    /** One page of an organization's gateways by TUID. */
    async list(organizationId: string, filter: GatewayListFilter): Promise<GatewayRow[]> {
      const conditions = [sql`true`];
      if (filter.q) conditions.push(sql`lower(s.gateway_tuid) like ${`%${escapeLike(filter.q.toLowerCase())}%`} escape '\\'`);
      if (filter.gatewayTuid !== undefined) conditions.push(sql`s.gateway_tuid = ${filter.gatewayTuid}`);
      if (filter.afterTuid !== undefined) conditions.push(sql`s.gateway_tuid > ${filter.afterTuid}`);
      if (filter.state === 'silent') conditions.push(sql`s.last_seen < ${ms(filter.gatewaySilentBefore)}`);
      if (filter.state === 'online') conditions.push(sql`s.last_seen >= ${ms(filter.gatewaySilentBefore)}`);
      const only = filter.gatewayTuid === undefined ? sql`` : sql`and last_heard_gateway_tuid = ${filter.gatewayTuid}`;
      const { rows } = await sql<Row>`
        with s as (
          select last_heard_gateway_tuid as gateway_tuid, max(last_heard_at) as last_seen, count(*) as thing_count,
                 sum(case when last_heard_at < ${ms(filter.thingSilentBefore)} then 1 else 0 end) as things_silent
          from things
          where organization_id = ${organizationId} and last_heard_gateway_tuid is not null ${only}
          group by last_heard_gateway_tuid)
        select s.gateway_tuid, s.last_seen, s.thing_count, s.things_silent, g.mqtt_username
        from s left join gateways g on g.organization_id = ${organizationId} and g.gateway_tuid = s.gateway_tuid
        where ${sql.join(conditions, sql` and `)}
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
