import type { Kysely } from 'kysely';
import type { InstanceDetails, InstanceRecord } from '../domain/deployment/instance-types.js';
import type { Schema } from './schema.js';

export type InstancesStore = ReturnType<typeof instancesStore>;

/** The deployment's instance register (migration 0010): one row per running process, renewed by its heartbeat. */
export function instancesStore(db: Kysely<Schema>) {
  return {
    /** Registers the instance or renews its row. */
    async heartbeat(instance: InstanceRecord): Promise<void> {
      const row = {
        id: instance.id,
        version: instance.version,
        host: instance.host,
        started_at: instance.startedAt,
        heartbeat_at: instance.heartbeatAt,
        details: JSON.stringify(instance.details),
      };
      await db
        .insertInto('instances')
        .values(row)
        .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: row.heartbeat_at, details: row.details }))
        .execute();
    },
    async remove(id: string): Promise<void> {
      await db.deleteFrom('instances').where('id', '=', id).execute();
    },
    /** Every registered instance, newest start first; the caller tells live from silent by `heartbeatAt`. */
    async list(): Promise<InstanceRecord[]> {
      const rows = await db.selectFrom('instances').selectAll().orderBy('started_at', 'desc').orderBy('id').execute();
      return rows.map((row) => ({
        id: row.id,
        version: row.version,
        host: row.host,
        startedAt: row.started_at,
        heartbeatAt: row.heartbeat_at,
        details: JSON.parse(row.details) as InstanceDetails,
      }));
    },
    /** Forgets instances silent since before `before` (ms): a crashed instance's row does not stay for ever. */
    async prune(before: number): Promise<number> {
      const result = await db.deleteFrom('instances').where('heartbeat_at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
