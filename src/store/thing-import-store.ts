import type { Kysely, Transaction } from 'kysely';
import type { ThingImportStore, ThingImportWrite, ThingImportWrites } from '../domain/provisioning/thing-import-types.js';
import type { Thing } from '../domain/things/thing-types.js';
import type { Dialect } from './database.js';
import { claimThing } from './installations-store.js';
import type { Schema } from './schema.js';
import { writeNameAndLabels } from './thing-labels-sql.js';
import { toThing } from './things-store.js';
import { thingChanged, writeOutbox, type WebhookOutboxHolder } from './webhook-outbox-writer.js';

/** TUIDs per `in (...)` list: far below both drivers' limits on bound parameters. */
const readBatch = 500;

/**
 * The store's side of an import of things (src/domain/provisioning/thing-import.ts): reads of things and groups by
 * the chunk, and one transaction for the writes. Within it, PostgreSQL locks the things read (FOR UPDATE) and the
 * groups (FOR SHARE, as a single assignment does); SQLite has one writer (installations-store.ts says why its
 * transactions do not interleave). Each write is the single calls' write: claimThing for a new thing, the status
 * as a compare-and-set with its history entry, the group, then name and labels through writeNameAndLabels.
 */
export function thingImportStore(db: Kysely<Schema>, dialect: Dialect, outbox: WebhookOutboxHolder = {}): ThingImportStore {
  const readsOf = (q: Kysely<Schema> | Transaction<Schema>, lock: boolean) => ({
    async things(tuids: readonly string[]): Promise<Map<string, Thing>> {
      const found = new Map<string, Thing>();
      for (let i = 0; i < tuids.length; i += readBatch) {
        const batch = tuids.slice(i, i + readBatch);
        const rows = await q
          .selectFrom('things')
          .selectAll()
          .where('tuid', 'in', batch)
          .$if(lock && dialect === 'postgres', (qb) => qb.orderBy('tuid').forUpdate())
          .execute();
        for (const row of rows) found.set(row.tuid, toThing(row));
      }
      return found;
    },
    async groups(organizationId: string, groupIds: readonly string[]): Promise<Set<string>> {
      const found = new Set<string>();
      for (let i = 0; i < groupIds.length; i += readBatch) {
        const rows = await q
          .selectFrom('groups')
          .select('group_id')
          .where('organization_id', '=', organizationId)
          .where('group_id', 'in', groupIds.slice(i, i + readBatch))
          .$if(lock && dialect === 'postgres', (qb) => qb.forShare())
          .execute();
        for (const row of rows) found.add(row.group_id);
      }
      return found;
    },
  });
  return {
    reads: readsOf(db, false),
    write<T>(work: (writes: ThingImportWrites) => Promise<T>): Promise<T> {
      return db.transaction().execute((trx) =>
        work({
          ...readsOf(trx, true),
          async createGroup(group) {
            await trx
              .insertInto('groups')
              .values({ organization_id: group.organizationId, group_id: group.groupId, description: null, created_at: group.createdAt })
              .onConflict((oc) => oc.doNothing())
              .execute();
          },
          writeThing: (write) => writeThing(trx, write),
          writeThings: (writes) => writeThings(trx, writes),
          announceChanges: (changed) =>
            writeOutbox(
              trx,
              outbox,
              changed.map((c) =>
                thingChanged(c.organizationId, c.tuid, c.groupId, c.changes as Record<string, { from: unknown; to: unknown }>),
              ),
            ),
        }),
      );
    },
  };
}

/**
 * A chunk's writes: the new things in three statements (the things, their history, their labels; a TUID claimed
 * meanwhile makes the insert come back short: false), the existing ones one by one (writeThing).
 */
async function writeThings(trx: Transaction<Schema>, writes: readonly ThingImportWrite[]): Promise<boolean> {
  const creates = writes.filter((w) => w.before === undefined);
  for (let i = 0; i < creates.length; i += insertBatch) {
    const batch = creates.slice(i, i + insertBatch);
    const inserted = await trx
      .insertInto('things')
      .values(
        batch.map((w) => ({
          tuid: w.tuid,
          organization_id: w.organizationId,
          group_id: w.groupId ?? null,
          installation_status: w.status?.to ?? 'new',
          created_at: w.at,
          name: w.name ?? null,
          labels: JSON.stringify(w.labels ?? {}),
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .returning('tuid')
      .execute();
    if (inserted.length !== batch.length) return false;
    const history = batch.flatMap((w) => {
      const entry = { organization_id: w.organizationId, tuid: w.tuid, timestamp: w.at, responsible: w.responsible };
      return [{ ...entry, installation_status: 'new' }, ...(w.status ? [{ ...entry, installation_status: w.status.to }] : [])];
    });
    await trx.insertInto('installation_history').values(history).execute();
    const labels = batch.flatMap((w) =>
      Object.entries(w.labels ?? {}).map(([key, value]) => ({
        organization_id: w.organizationId,
        label_key: key,
        label_value: value,
        tuid: w.tuid,
      })),
    );
    for (let j = 0; j < labels.length; j += labelBatch)
      await trx
        .insertInto('thing_labels')
        .values(labels.slice(j, j + labelBatch))
        .execute();
  }
  for (const write of writes) if (write.before !== undefined && !(await writeThing(trx, write))) return false;
  return true;
}

// Rows per multi-row insert, within both drivers' limits on bound parameters (SQLite 32,766; PostgreSQL 65,535).
const insertBatch = 1000;
const labelBatch = 2000;

async function writeThing(trx: Transaction<Schema>, write: ThingImportWrite): Promise<boolean> {
  const { tuid, organizationId } = write;
  let current: Pick<Thing, 'tuid' | 'organizationId' | 'groupId' | 'name' | 'labels'>;
  if (write.before) current = write.before;
  else {
    if (!(await claimThing(trx, write))) return false;
    current = { tuid, organizationId, groupId: null, name: null, labels: {} };
  }
  if (write.status) {
    const moved = await trx
      .updateTable('things')
      .set({ installation_status: write.status.to })
      .where('tuid', '=', tuid)
      .where('organization_id', '=', organizationId)
      .where('installation_status', '=', write.status.from)
      .executeTakeFirst();
    if (moved.numUpdatedRows === 0n) return false;
    await trx
      .insertInto('installation_history')
      .values({
        organization_id: organizationId,
        tuid,
        installation_status: write.status.to,
        timestamp: write.at,
        responsible: write.responsible,
      })
      .execute();
  }
  if (write.groupId !== undefined && write.groupId !== current.groupId) {
    await trx
      .updateTable('things')
      .set({ group_id: write.groupId })
      .where('tuid', '=', tuid)
      .where('organization_id', '=', organizationId)
      .execute();
  }
  await writeNameAndLabels(trx, current, { name: write.name, labels: write.labels });
  return true;
}
