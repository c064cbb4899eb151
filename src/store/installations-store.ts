import type { Kysely, Transaction } from 'kysely';
import type { InstallationEntry } from '../domain/installations/installation-types.js';
import type { InstallationStatus, Thing } from '../domain/things/thing-types.js';
import type { Schema } from './schema.js';
import { toThing } from './things-store.js';
import { thingChanged, writeOutbox, type WebhookOutboxHolder } from './webhook-outbox-writer.js';

export type InstallationsStore = ReturnType<typeof installationsStore>;

/** What a status change writes: the thing, its organization, the new status, when (ms) and on whose behalf. */
export interface StatusWrite {
  tuid: string;
  organizationId: string;
  status: InstallationStatus;
  at: number;
  responsible: string;
}

/**
 * The installation history and the status on the things row, always written together in one transaction.
 *
 * On SQLite the transaction runs over the one better-sqlite3 connection, whose queries complete synchronously:
 * as long as a transaction body awaits nothing but its own queries, it runs to its end before the event loop
 * turns, so the uplink writer (which uses the same connection directly) cannot interleave with it.
 */
export function installationsStore(db: Kysely<Schema>, outbox: WebhookOutboxHolder = {}) {
  return {
    /** The thing's history, newest first (by insertion order); all of it when `limit` is undefined. */
    async list(input: { organizationId: string; tuid: string; limit?: number }): Promise<InstallationEntry[]> {
      const rows = await db
        .selectFrom('installation_history')
        .select(['installation_status', 'timestamp', 'responsible'])
        .where('organization_id', '=', input.organizationId)
        .where('tuid', '=', input.tuid)
        .orderBy('id', 'desc')
        .$if(input.limit !== undefined, (qb) => qb.limit(input.limit!))
        .execute();
      return rows.map((row) => ({
        status: row.installation_status as InstallationStatus,
        timestamp: row.timestamp,
        responsible: row.responsible,
      }));
    },

    /**
     * Claims a thing nobody owns for `organizationId` (history: `new`, then `status` unless that is `new`), in one
     * transaction. undefined when the thing already exists (someone else claimed it first): nothing is written,
     * and the caller reads the owner again.
     */
    async claimWithStatus(write: StatusWrite): Promise<Thing | undefined> {
      return db.transaction().execute(async (trx) => {
        if (!(await claimThing(trx, write))) return undefined;
        if (write.status !== 'new') {
          await writeStatus(trx, write);
          await writeOutbox(trx, outbox, [
            thingChanged(write.organizationId, write.tuid, null, { installation_status: { from: 'new', to: write.status } }),
          ]);
        }
        return readThing(trx, write.tuid);
      });
    },

    /**
     * Moves the thing from `from` to `write.status` and records it, in one transaction. Compare-and-set: undefined
     * (nothing written) when the thing is not the organization's or no longer in `from`, e.g. a concurrent change.
     */
    async changeStatus(write: StatusWrite & { from: InstallationStatus }): Promise<Thing | undefined> {
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('things')
          .set({ installation_status: write.status })
          .where('tuid', '=', write.tuid)
          .where('organization_id', '=', write.organizationId)
          .where('installation_status', '=', write.from)
          .executeTakeFirst();
        if (result.numUpdatedRows === 0n) return undefined;
        await appendHistory(trx, write);
        await writeOutbox(trx, outbox, [
          thingChanged(write.organizationId, write.tuid, undefined, { installation_status: { from: write.from, to: write.status } }),
        ]);
        return readThing(trx, write.tuid);
      });
    },
  };
}

/**
 * Inside a transaction: creates the thing for `organizationId` as `new` in no group, with the first history
 * entry, unless it exists. Race-safe: a concurrent claim wins by the primary key and this one writes nothing.
 * Returns whether this call created it.
 */
export async function claimThing(
  trx: Transaction<Schema>,
  claim: { tuid: string; organizationId: string; at: number; responsible: string },
): Promise<boolean> {
  const result = await trx
    .insertInto('things')
    .values({ tuid: claim.tuid, organization_id: claim.organizationId, group_id: null, installation_status: 'new', created_at: claim.at })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
  await appendHistory(trx, { ...claim, status: 'new' });
  return true;
}

async function writeStatus(trx: Transaction<Schema>, write: StatusWrite): Promise<void> {
  await trx.updateTable('things').set({ installation_status: write.status }).where('tuid', '=', write.tuid).execute();
  await appendHistory(trx, write);
}

async function appendHistory(trx: Transaction<Schema>, write: StatusWrite): Promise<void> {
  await trx
    .insertInto('installation_history')
    .values({
      organization_id: write.organizationId,
      tuid: write.tuid,
      installation_status: write.status,
      timestamp: write.at,
      responsible: write.responsible,
    })
    .execute();
}

/** The thing as committed by this transaction. */
export async function readThing(trx: Transaction<Schema>, tuid: string): Promise<Thing> {
  return toThing(await trx.selectFrom('things').selectAll().where('tuid', '=', tuid).executeTakeFirstOrThrow());
}
