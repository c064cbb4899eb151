import { sql, type Kysely, type Selectable } from 'kysely';
import type { InstallationStatus, Thing } from '../domain/things/thing-types.js';
import type { Schema, ThingsTable } from './schema.js';
import type { SqliteDirectReads } from './sqlite-direct-reads.js';

export type ThingsStore = ReturnType<typeof thingsStore>;

export function thingsStore(db: Kysely<Schema>, directReads: SqliteDirectReads | undefined) {
  return {
    /**
     * The thing with this TUID whoever owns it; callers check the organization. Every thing-scoped request starts
     * here, so on SQLite it is a direct prepared read when it can be (SqliteDirectReads).
     */
    async get(tuid: string): Promise<Thing | undefined> {
      const direct = directReads?.statement<Selectable<ThingsTable>>('select * from things where tuid = ?', 'rows');
      const row = direct ? direct.get(tuid) : await db.selectFrom('things').selectAll().where('tuid', '=', tuid).executeTakeFirst();
      return row && toThing(row);
    },
    /**
     * One page of an organization's things by TUID. `groupId` null lists the things in no group; `q` is a
     * case-insensitive substring of the TUID; `alerting` true keeps only things with an active alert, false only those
     * without; `afterTuid` continues after the previous page's last TUID.
     */
    async list(
      organizationId: string,
      filter: { groupId?: string | null; installationStatus?: string; q?: string; alerting?: boolean; afterTuid?: string; limit: number },
    ): Promise<Thing[]> {
      let query = db.selectFrom('things').selectAll().where('organization_id', '=', organizationId);
      if (filter.groupId === null) query = query.where('group_id', 'is', null);
      else if (filter.groupId !== undefined) query = query.where('group_id', '=', filter.groupId);
      if (filter.installationStatus !== undefined) query = query.where('installation_status', '=', filter.installationStatus);
      if (filter.q) query = query.where(sql<boolean>`lower(tuid) like ${`%${escapeLike(filter.q.toLowerCase())}%`} escape '\\'`);
      if (filter.alerting === true) {
        // Driven by the organization's active alerts (index alerts_organization_closed): as cheap when one thing in
        // a thousand alerts as when every fifth does, where walking the things in TUID order would read them all.
        const active = db.selectFrom('alerts').select('tuid').where('organization_id', '=', organizationId).where('closed_at', 'is', null);
        query = query.where('tuid', 'in', active);
      } else if (filter.alerting === false) {
        // Most things pass, so the walk in TUID order fills a page early; each thing costs one probe of the partial
        // index alerts_one_active (tuid, alert_type where closed_at is null).
        query = query.where(sql<boolean>`not exists (select 1 from alerts a where a.tuid = things.tuid and a.closed_at is null)`);
      }
      if (filter.afterTuid !== undefined) query = query.where('tuid', '>', filter.afterTuid);
      const rows = await query.orderBy('tuid').limit(filter.limit).execute();
      return rows.map(toThing);
    },
    async count(organizationId: string): Promise<number> {
      const row = await db
        .selectFrom('things')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', organizationId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** The organization's things in `groupId` (null: in no group), in no particular order. */
    async listInGroup(organizationId: string, groupId: string | null): Promise<Thing[]> {
      const rows = await db
        .selectFrom('things')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('group_id', groupId === null ? 'is' : '=', groupId)
        .execute();
      return rows.map(toThing);
    },
    /**
     * Gives up an organization's claim on a TUID: the thing and everything recorded for it in that organization
     * (messages, installation and command history, alerts) are deleted in one transaction, so the next uplink
     * naming the TUID claims it anew. False when the organization does not hold it.
     */
    async release(organizationId: string, tuid: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const owned = await trx
          .deleteFrom('things')
          .where('organization_id', '=', organizationId)
          .where('tuid', '=', tuid)
          .executeTakeFirst();
        if (Number(owned.numDeletedRows) === 0) return false;
        await trx.deleteFrom('messages').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        await trx.deleteFrom('thing_rollups').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        await trx.deleteFrom('thing_rollup_days').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        await trx.deleteFrom('thing_rollup_day_hours').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        await trx.deleteFrom('installation_history').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        await trx.deleteFrom('alerts').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        const requests = trx
          .selectFrom('command_requests')
          .select('id')
          .where('organization_id', '=', organizationId)
          .where('tuid', '=', tuid);
        await trx.deleteFrom('command_items').where('tuid', '=', tuid).where('request_id', 'in', requests).execute();
        await trx.deleteFrom('command_requests').where('organization_id', '=', organizationId).where('tuid', '=', tuid).execute();
        return true;
      });
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

/** Escapes LIKE's wildcards (TUIDs may contain `_`) with a backslash. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
