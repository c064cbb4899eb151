import { Type } from '@sinclair/typebox';
import { applyToThings, bulkThingActions, bulkThingLimit } from '../../../domain/things/thing-bulk.js';
import { installationStatuses } from '../../../domain/things/thing-types.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { dataOf, errors } from '../schemas.js';

const BulkFilter = Type.Object(
  {
    group_id: Type.Optional(Type.String()),
    installation_status: Type.Optional(Type.String({ enum: [...installationStatuses] })),
    q: Type.Optional(Type.String({ maxLength: 64 })),
    alerting: Type.Optional(Type.Boolean()),
    gateway_tuid: Type.Optional(Type.String()),
    battery_below: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    silent_for_s: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false, description: "the things list's filters (GET /things); at most 500 things may match" },
);
const BulkBody = Type.Object(
  {
    action: Type.String({ enum: [...bulkThingActions] }),
    // Not checked against the TUID rule here: a bad TUID gets its own result, the others go on.
    tuids: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { minItems: 1, maxItems: bulkThingLimit })),
    filter: Type.Optional(BulkFilter),
    group_id: Type.Optional(Type.String({ description: 'for set_group: a group id, or `unassigned`' })),
    installation_status: Type.Optional(Type.String({ description: 'for set_installation_status' })),
    labels: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: "for set_labels: replaces each thing's labels, as PATCH /things/{tuid}" }),
    ),
    commands: Type.Optional(Type.Array(Type.Unknown(), { description: 'for send_commands: as POST /things/{tuid}/commands' })),
  },
  { additionalProperties: false, description: 'exactly one of `tuids` or `filter`' },
);
const BulkResult = Type.Object({
  tuid: Type.String(),
  ok: Type.Boolean(),
  code: Type.Optional(Type.String({ description: "the single call's error code" })),
  message: Type.Optional(Type.String({ description: "the single call's error message" })),
});

/** SPEC section 16: one action applied to many things, each through the single call's rules. */
export function registerThingBulkRoutes(app: RestApp, deps: RestDeps): void {
  app.post(
    '/things/bulk',
    {
      config: {
        fieldNames: {
          groupId: 'group_id',
          installationStatus: 'installation_status',
          gatewayTuid: 'gateway_tuid',
          batteryBelow: 'battery_below',
          silentForS: 'silent_for_s',
        },
      },
      schema: {
        operationId: 'applyToThings',
        tags: ['things'],
        summary: 'Apply one action (group, installation status, labels, commands) to many things; one result per thing',
        body: BulkBody,
        response: { 200: dataOf(Type.Object({ results: Type.Array(BulkResult) })), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const body = request.body;
      const filter = body.filter && {
        groupId: body.filter.group_id,
        installationStatus: body.filter.installation_status,
        q: body.filter.q,
        alerting: body.filter.alerting,
        gatewayTuid: body.filter.gateway_tuid,
        batteryBelow: body.filter.battery_below,
        silentForS: body.filter.silent_for_s,
      };
      const results = await applyToThings(deps, request.client, {
        action: body.action,
        tuids: body.tuids,
        filter,
        groupId: body.group_id,
        installationStatus: body.installation_status,
        labels: body.labels,
        commands: body.commands,
      });
      return { data: { results } };
    },
  );
}
