import type { Kysely, Selectable } from 'kysely';
import type { Group, GroupListing } from '../domain/groups/group-types.js';
import type { Thing } from '../domain/things/thing-types.js';
import type { Dialect } from './database.js';
import { claimThing, readThing } from './installations-store.js';
import type { GroupsTable, Schema } from './schema.js';
import { insertUnique } from './store-errors.js';
import { thingChanged, writeOutbox, type WebhookOutboxHolder } from './webhook-outbox-writer.js';
import { shownGroupId } from '../domain/groups/unassigned-group.js';

export type GroupsStore = ReturnType<typeof groupsStore>;

/** The outcome of assigning a thing: done, the group does not exist, or the thing is another organization's. */
export type AssignOutcome =
  { outcome: 'assigned'; thing: Thing; before: Thing | undefined } | { outcome: 'no-group' } | { outcome: 'foreign' };

/**
 * Deployment groups, per organization. A thing's group lives on its things row (null: in no group); renaming or
 * deleting a group moves its things in the same transaction.
 *
 * Races on PostgreSQL are settled by the group row: rename and delete change it first (taking its row lock), and
 * an assignment reads it FOR SHARE, so an assignment either finishes before a rename/delete (whose update of the
 * things then sees it) or waits and finds the group gone. SQLite has one writer and needs no lock (see
 * installations-store.ts for why its transactions do not interleave).
 */
export function groupsStore(db: Kysely<Schema>, dialect: Dialect, outbox: WebhookOutboxHolder = {}) {
  return {
    /** DuplicateKeyError when the organization already has this id. */
    async create(group: Group): Promise<Group> {
      await insertUnique('group', () =>
        db
          .insertInto('groups')
          .values({
            organization_id: group.organizationId,
            group_id: group.groupId,
            description: group.description,
            created_at: group.createdAt,
          })
          .execute(),
      );
      return group;
    },

    async get(organizationId: string, groupId: string): Promise<Group | undefined> {
      const row = await db
        .selectFrom('groups')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('group_id', '=', groupId)
        .executeTakeFirst();
      return row && toGroup(row);
    },

    /** Every group of the organization with its number of things, in no particular order. */
    async listWithCounts(organizationId: string): Promise<GroupListing[]> {
      const rows = await db
        .selectFrom('groups as g')
        .select(['g.group_id', 'g.description', 'g.created_at'])
        .select((eb) =>
          eb
            .selectFrom('things as t')
            .select(eb.fn.countAll<number>().as('n'))
            .whereRef('t.organization_id', '=', 'g.organization_id')
            .whereRef('t.group_id', '=', 'g.group_id')
            .as('thing_count'),
        )
        .where('g.organization_id', '=', organizationId)
        .execute();
      return rows.map((row) => ({
        groupId: row.group_id,
        description: row.description,
        createdAt: row.created_at,
        thingCount: Number(row.thing_count ?? 0),
      }));
    },

    /** How many of the organization's things are in no group. */
    async countUngrouped(organizationId: string): Promise<number> {
      const row = await db
        .selectFrom('things')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', organizationId)
        .where('group_id', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Renames a group and moves its things. false when `from` does not exist; DuplicateKeyError when `to` does. */
    async rename(organizationId: string, from: string, to: string): Promise<boolean> {
      return insertUnique('group', () =>
        db.transaction().execute(async (trx) => {
          const renamed = await trx
            .updateTable('groups')
            .set({ group_id: to })
            .where('organization_id', '=', organizationId)
            .where('group_id', '=', from)
            .executeTakeFirst();
          if (renamed.numUpdatedRows === 0n) return false;
          await trx
            .updateTable('things')
            .set({ group_id: to })
            .where('organization_id', '=', organizationId)
            .where('group_id', '=', from)
            .execute();
          return true;
        }),
      );
    },

    /** Deletes a group and leaves its things in no group. false when it does not exist. */
    async delete(organizationId: string, groupId: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const deleted = await trx
          .deleteFrom('groups')
          .where('organization_id', '=', organizationId)
          .where('group_id', '=', groupId)
          .executeTakeFirst();
        if (deleted.numDeletedRows === 0n) return false;
        await trx
          .updateTable('things')
          .set({ group_id: null })
          .where('organization_id', '=', organizationId)
          .where('group_id', '=', groupId)
          .execute();
        return true;
      });
    },

    /**
     * Puts the thing in `groupId` (null: in no group), in one transaction. A thing nobody owns is claimed for the
     * organization first (status `new`, first history entry on behalf of `responsible`); another organization's
     * thing, or a missing group, leaves everything unchanged.
     */
    async assignThing(input: {
      tuid: string;
      organizationId: string;
      groupId: string | null;
      at: number;
      responsible: string;
    }): Promise<AssignOutcome> {
      return db.transaction().execute(async (trx): Promise<AssignOutcome> => {
        if (input.groupId !== null) {
          const group = await trx
            .selectFrom('groups')
            .select('group_id')
            .where('organization_id', '=', input.organizationId)
            .where('group_id', '=', input.groupId)
            .$if(dialect === 'postgres', (qb) => qb.forShare())
            .executeTakeFirst();
          if (!group) return { outcome: 'no-group' };
        }
        // Insert-or-nothing, then read the owner: a concurrent claim by anyone has committed by the time it returns.
        const claimed = await claimThing(trx, input);
        const owner = await readThing(trx, input.tuid);
        // Another organization's thing: nothing was written (claimThing did nothing), so returning commits nothing.
        if (owner.organizationId !== input.organizationId) return { outcome: 'foreign' };
        await trx.updateTable('things').set({ group_id: input.groupId }).where('tuid', '=', input.tuid).execute();
        if (owner.groupId !== input.groupId)
          await writeOutbox(trx, outbox, [
            thingChanged(input.organizationId, input.tuid, input.groupId, {
              group_id: { from: shownGroupId(owner.groupId), to: shownGroupId(input.groupId) },
            }),
          ]);
        return { outcome: 'assigned', thing: await readThing(trx, input.tuid), before: claimed ? undefined : owner };
      });
    },
  };
}

function toGroup(row: Selectable<GroupsTable>): Group {
  return { organizationId: row.organization_id, groupId: row.group_id, description: row.description, createdAt: row.created_at };
}
