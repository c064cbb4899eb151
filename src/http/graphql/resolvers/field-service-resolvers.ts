import { assignThingToGroup, listGroupThings } from '../../../domain/groups/group-membership.js';
import { toUnixSeconds } from '../../../domain/clock.js';
import { createGroup, deleteGroup, listGroups, renameGroup } from '../../../domain/groups/group-service.js';
import type { GroupListing } from '../../../domain/groups/group-types.js';
import { listInstallationHistory, setInstallationStatus } from '../../../domain/installations/installation-service.js';
import { shownGroupId } from '../../../domain/groups/unassigned-group.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { presentThing, userOf, withArgumentNames } from './resolver-helpers.js';

// The domain's field names (REST's) to this file's argument names, for BAD_USER_INPUT's `extensions.errors`.
const groupIdArgument = { groupid: 'groupId', group_id: 'groupId' } as const;
const createGroupArguments = { group_id: 'groupId', group_description: 'description' } as const;
const renameGroupArguments = { groupid: 'groupId', group_id: 'newGroupId' } as const;
const statusArgument = { installation_status: 'status' } as const;

function presentGroup(group: GroupListing) {
  return {
    groupId: shownGroupId(group.groupId),
    description: group.description,
    thingCount: group.thingCount,
    createdAt: group.createdAt === null ? null : toUnixSeconds(group.createdAt),
  };
}

/** Installation status and deployment groups: the same domain functions as REST. */
export const fieldServiceResolvers = {
  Query: {
    groups: async (_: unknown, args: { q?: string | null; limit?: number | null }, context: GraphqlContext) =>
      (await listGroups(context.deps, userOf(context), { q: args.q ?? undefined, limit: args.limit ?? undefined })).map(presentGroup),
    group: async (_: unknown, args: { groupId: string }, context: GraphqlContext) => {
      const listed = await withArgumentNames(groupIdArgument, () => listGroupThings(context.deps, userOf(context), { groupId: args.groupId }));
      const things = listed.things.map(presentThing);
      return { groupId: shownGroupId(listed.groupId), tuids: things.map((t) => t.tuid), things };
    },
    installations: async (_: unknown, args: { tuid: string; limit?: number | null }, context: GraphqlContext) =>
      (await listInstallationHistory(context.deps, userOf(context), { tuid: args.tuid, limit: args.limit ?? undefined })).map((entry) => ({
        installationStatus: entry.status,
        timestamp: toUnixSeconds(entry.timestamp),
        responsible: entry.responsible,
      })),
  },
  Mutation: {
    setInstallationStatus: async (_: unknown, args: { tuid: string; status: string }, context: GraphqlContext) => {
      const change = await withArgumentNames(statusArgument, () =>
        setInstallationStatus(context.deps, userOf(context), { tuid: args.tuid, status: args.status }),
      );
      return {
        tuid: change.thing.tuid,
        installationStatus: change.thing.installationStatus,
        groupId: shownGroupId(change.thing.groupId),
        timestamp: toUnixSeconds(change.entry.timestamp),
        responsible: change.entry.responsible,
      };
    },
    assignThingToGroup: async (_: unknown, args: { tuid: string; groupId: string }, context: GraphqlContext) =>
      presentThing(
        await withArgumentNames(groupIdArgument, () => assignThingToGroup(context.deps, userOf(context), { tuid: args.tuid, groupId: args.groupId })),
      ),
    createGroup: async (_: unknown, args: { groupId: string; description?: string | null }, context: GraphqlContext) => {
      const group = await withArgumentNames(createGroupArguments, () =>
        createGroup(context.deps, userOf(context), { groupId: args.groupId, description: args.description ?? undefined }),
      );
      return presentGroup({ ...group, thingCount: 0 });
    },
    renameGroup: async (_: unknown, args: { groupId: string; newGroupId: string }, context: GraphqlContext) => {
      const renamed = await withArgumentNames(renameGroupArguments, () =>
        renameGroup(context.deps, userOf(context), { groupId: args.groupId, newGroupId: args.newGroupId }),
      );
      // Narrowed by the new id: an unfiltered page of the first 1000 groups could miss the renamed one.
      const listing = (await listGroups(context.deps, userOf(context), { q: renamed.groupId, limit: 1000 })).find((g) => g.groupId === renamed.groupId);
      return presentGroup(listing ?? { groupId: renamed.groupId, description: null, thingCount: 0, createdAt: null });
    },
    deleteGroup: async (_: unknown, args: { groupId: string }, context: GraphqlContext) => {
      await withArgumentNames(groupIdArgument, () => deleteGroup(context.deps, userOf(context), { groupId: args.groupId }));
      return true;
    },
  },
};
