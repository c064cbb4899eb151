import { assignThingToGroup, assignThingsToGroup, listGroupThings } from '../../../domain/groups/group-membership.js';
import { createGroup, deleteGroup, listGroups, renameGroup } from '../../../domain/groups/group-service.js';
import { shownGroupId } from '../../../domain/groups/unassigned-group.js';
import { appErrorAsGraphql } from '../graphql-errors.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { presentGroup, presentThing } from '../presenters.js';
import { userOf } from './resolver-helpers.js';

/** Deployment groups and a thing's group: the same domain functions as REST. */
export const groupResolvers = {
  Query: {
    groups: async (_: unknown, args: { q?: string | null; limit?: number | null }, context: GraphqlContext) =>
      (await listGroups(context.deps, userOf(context), { q: args.q ?? undefined, limit: args.limit ?? undefined })).map(presentGroup),
    group: async (_: unknown, args: { groupId: string }, context: GraphqlContext) => {
      const listed = await listGroupThings(context.deps, userOf(context), { groupId: args.groupId });
      const things = listed.things.map(presentThing);
      return { groupId: shownGroupId(listed.groupId), tuids: things.map((t) => t.tuid), things };
    },
  },
  Mutation: {
    assignThingToGroup: async (_: unknown, args: { tuid: string; groupId: string }, context: GraphqlContext) =>
      presentThing(await assignThingToGroup(context.deps, userOf(context), { tuid: args.tuid, groupId: args.groupId })),
    assignThingsToGroup: async (_: unknown, args: { groupId: string; tuids: string[] }, context: GraphqlContext) =>
      (await assignThingsToGroup(context.deps, userOf(context), { groupId: args.groupId, tuids: args.tuids })).map((outcome) => {
        if (outcome.thing) return { tuid: outcome.tuid, thing: presentThing(outcome.thing), problem: null };
        // The same code and message the single mutation would answer for this TUID.
        const { message, extensions } = appErrorAsGraphql(outcome.error);
        return { tuid: outcome.tuid, thing: null, problem: { code: extensions.code, message } };
      }),
    createGroup: async (_: unknown, args: { groupId: string; description?: string | null }, context: GraphqlContext) => {
      const group = await createGroup(context.deps, userOf(context), { groupId: args.groupId, description: args.description ?? undefined });
      return presentGroup({ ...group, thingCount: 0 });
    },
    renameGroup: async (_: unknown, args: { groupId: string; newGroupId: string }, context: GraphqlContext) => {
      const renamed = await renameGroup(context.deps, userOf(context), { groupId: args.groupId, newGroupId: args.newGroupId });
      // Narrowed by the new id: an unfiltered page of the first 1000 groups could miss the renamed one.
      const listing = (await listGroups(context.deps, userOf(context), { q: renamed.groupId, limit: 1000 })).find(
        (g) => g.groupId === renamed.groupId,
      );
      return presentGroup(listing ?? { groupId: renamed.groupId, description: null, thingCount: 0, createdAt: null });
    },
    deleteGroup: async (_: unknown, args: { groupId: string }, context: GraphqlContext) => {
      await deleteGroup(context.deps, userOf(context), { groupId: args.groupId });
      return true;
    },
  },
};
