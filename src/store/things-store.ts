import type { Kysely, Selectable } from 'kysely';
import type { InstallationStatus, Thing } from '../domain/things/thing-types.js';
import type { Schema, ThingsTable } from './schema.js';

export type ThingsStore = ReturnType<typeof thingsStore>;

export function thingsStore(db: Kysely<Schema>) {
  return {
    /** The thing with this TUID whoever owns it; callers check the organization. */
    async get(tuid: string): Promise<Thing | undefined> {
      const row = await db.selectFrom('things').selectAll().where('tuid', '=', tuid).executeTakeFirst();
      return row && toThing(row);
    },
    async count(organizationId: string): Promise<number> {
      const row = await db
        .selectFrom('things')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', organizationId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export function toThing(row: Selectable<ThingsTable>): Thing {
  return {
    tuid: row.tuid,
    organizationId: row.organization_id,
    groupId: row.group_id,
    installationStatus: row.installation_status as InstallationStatus,
    createdAt: row.created_at,
    summary: {
      timestamp: row.last_ts,
      gatewayTuid: row.last_gateway_tuid,
      batteryLevel: row.battery_level,
      version: row.version,
      location: row.lat !== null && row.lon !== null ? { lat: row.lat, lon: row.lon } : null,
    },
    lastHeardAt: row.last_heard_at,
    lastHeardGatewayTuid: row.last_heard_gateway_tuid,
  };
}
