import { Type } from '@sinclair/typebox';
import { assignThingToGroup, getThingGroup, listGroupThings } from '../../../domain/groups/group-membership.js';
import { createGroup, deleteGroup, groupListLimit, listGroups, renameGroup } from '../../../domain/groups/group-service.js';
import { shownGroupId } from '../../../domain/groups/unassigned-group.js';
import { presentCreatedGroup, presentListedGroup, presentThingGroup, presentThingSummary } from '../presenters.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { ThingSummary, TuidParams, dataOf, errors } from '../schemas.js';

const groupIdRule = '1-64 characters; no whitespace, control characters, /, + or #; not `unassigned` in any letter case';
// 'x-group-id' checks the domain's group id rule with the other fields (validator-compiler.ts), so one answer names
// every bad field; 'ref' also admits `unassigned`.
const GroupId = Type.String({ description: `Group id: ${groupIdRule}`, 'x-group-id': 'id' });
const GroupRef = Type.String({ description: 'A group id, or `unassigned` for the things in no group', 'x-group-id': 'ref' });
const Description = Type.Union([Type.String({ maxLength: 1024 }), Type.Null()], {
  description: 'Free text, at most 1024 characters; null when none',
});
export const GroupParams = Type.Object({ groupid: GroupRef });

const CreateBody = Type.Object({ group_id: GroupId, group_description: Type.Optional(Description) }, { additionalProperties: false });
const GroupIdBody = Type.Object({ group_id: GroupId }, { additionalProperties: false });
const AssignBody = Type.Object({ group_id: GroupRef }, { additionalProperties: false });
const ListQuery = Type.Object({
  q: Type.Optional(Type.String({ description: 'case-insensitive substring of the group id or description' })),
  limit: Type.Optional(
    Type.Integer({
      minimum: groupListLimit.min,
      maximum: groupListLimit.max,
      description: `at most this many groups; ${groupListLimit.default} when absent`,
    }),
  ),
});

const CreatedGroup = Type.Object({
  group_id: Type.String(),
  group_description: Description,
  created_at: Type.Integer({ description: 'Unix seconds' }),
});
const ListedGroup = Type.Object({
  group_id: Type.String({ description: '`unassigned` is the pseudo-group of the things in no group' }),
  group_description: Description,
  thing_count: Type.Integer(),
  created_at: Type.Union([Type.Integer({ description: 'Unix seconds' }), Type.Null()], { description: 'null for `unassigned`' }),
});
const ThingGroup = Type.Object({ tuid: Type.String(), group_id: Type.String() });

// The domain's `groupId` as these routes name it: `groupid` in paths, `group_id` in bodies.
const pathGroupId = { groupId: 'groupid' } as const;
const bodyGroupId = { groupId: 'group_id' } as const;

/** Endpoints 9 to 13: deployment groups, and a thing's group. */
export function registerGroupRoutes(app: RestApp, deps: RestDeps): void {
  const tags = ['groups'];

  app.post(
    '/groups',
    {
      config: { fieldNames: { groupId: 'group_id', description: 'group_description' } },
      schema: {
        operationId: 'createGroup',
        tags,
        summary: 'Create a deployment group',
        body: CreateBody,
        response: { 200: dataOf(CreatedGroup), ...errors(400, 401, 409, 429) },
      },
    },
    async (request) => {
      const group = await createGroup(deps, request.client, {
        groupId: request.body.group_id,
        description: request.body.group_description,
      });
      return { data: presentCreatedGroup(group) };
    },
  );

  app.get(
    '/groups',
    {
      schema: {
        operationId: 'listGroups',
        tags,
        summary: 'List the groups by id, with `unassigned`',
        querystring: ListQuery,
        response: { 200: dataOf(Type.Array(ListedGroup)), ...errors(400, 401, 429) },
      },
    },
    async (request) => {
      const { q, limit } = request.query;
      return { data: (await listGroups(deps, request.client, { q, limit })).map(presentListedGroup) };
    },
  );

  app.post(
    '/groups/:groupid/rename',
    {
      config: { fieldNames: { groupId: 'groupid', newGroupId: 'group_id' } },
      schema: {
        operationId: 'renameGroup',
        tags,
        summary: 'Rename a group; its things follow',
        params: GroupParams,
        body: GroupIdBody,
        response: { 200: dataOf(Type.Object({ group_id: Type.String() })), ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request) => {
      const { groupid } = request.params;
      const { group_id } = request.body;
      const renamed = await renameGroup(deps, request.client, { groupId: groupid, newGroupId: group_id });
      return { data: { group_id: renamed.groupId } };
    },
  );

  app.delete(
    '/groups/:groupid',
    {
      config: { fieldNames: pathGroupId },
      schema: {
        operationId: 'deleteGroup',
        tags,
        summary: 'Delete a group; its things become unassigned',
        params: GroupParams,
        response: { 200: dataOf(Type.Object({ group_id: Type.String(), deleted: Type.Boolean() })), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { groupid } = request.params;
      await deleteGroup(deps, request.client, { groupId: groupid });
      return { data: { group_id: groupid, deleted: true } };
    },
  );

  app.get(
    '/groups/:groupid/things',
    {
      config: { fieldNames: pathGroupId },
      schema: {
        operationId: 'listGroupThings',
        tags,
        summary: 'List the things of a group (`unassigned`: the things in no group)',
        params: GroupParams,
        response: {
          200: dataOf(Type.Object({ group_id: Type.String(), tuids: Type.Array(Type.String()), things: Type.Array(ThingSummary) })),
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (request) => {
      const { groupid } = request.params;
      const { groupId, things } = await listGroupThings(deps, request.client, { groupId: groupid });
      return { data: { group_id: shownGroupId(groupId), tuids: things.map((t) => t.tuid), things: things.map(presentThingSummary) } };
    },
  );

  app.post(
    '/things/:tuid/group',
    {
      config: { fieldNames: bodyGroupId },
      schema: {
        operationId: 'assignThingToGroup',
        tags,
        summary: 'Assign a thing to a group (`unassigned`: to none); claims a thing nobody owns',
        params: TuidParams,
        body: AssignBody,
        response: {
          200: dataOf(Type.Object({ tuid: Type.String(), group_id: Type.String(), installation_status: Type.String() })),
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (request) => {
      const { tuid } = request.params;
      const { group_id } = request.body;
      const thing = await assignThingToGroup(deps, request.client, { tuid, groupId: group_id });
      return { data: { ...presentThingGroup(thing), installation_status: thing.installationStatus } };
    },
  );

  app.get(
    '/things/:tuid/group',
    {
      schema: {
        operationId: 'getThingGroup',
        tags,
        summary: 'Read the group of a thing',
        params: TuidParams,
        response: { 200: dataOf(ThingGroup), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { tuid } = request.params;
      const thing = await getThingGroup(deps, request.client, { tuid });
      return { data: presentThingGroup(thing) };
    },
  );
}
