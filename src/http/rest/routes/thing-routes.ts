import { Type } from '@sinclair/typebox';
import { listThings, thingPageLimit } from '../../../domain/things/thing-queries.js';
import { installationStatuses } from '../../../domain/things/thing-types.js';
import { requireThing } from '../../../domain/things/thing-access.js';
import { presentThingSummary } from '../presenters.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { ThingSummary, TuidParams, dataOf, errors } from '../schemas.js';

const ThingListQuery = Type.Object({
  group_id: Type.Optional(Type.String({ description: 'a group id, or `unassigned`' })),
  installation_status: Type.Optional(Type.String({ enum: [...installationStatuses] })),
  q: Type.Optional(Type.String({ maxLength: 64, description: 'case-insensitive substring of the TUID' })),
  alerting: Type.Optional(Type.Boolean({ description: '`true`: only things with an active alert; `false`: only things without one' })),
  limit: Type.Optional(Type.Integer({ minimum: thingPageLimit.min, maximum: thingPageLimit.max, default: thingPageLimit.default })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: '`next_cursor` of the previous page' })),
});

/** Endpoint 2 (`GET /things/{tuid}`, the thing summary) and the list `GET /things` with filters and cursor paging. */
export function registerThingRoutes(app: RestApp, deps: RestDeps): void {
  app.get(
    '/things',
    {
      config: { fieldNames: { groupId: 'group_id', installationStatus: 'installation_status' } },
      schema: {
        operationId: 'listThings',
        tags: ['things'],
        summary: "List the organization's things by TUID, a page at a time",
        querystring: ThingListQuery,
        response: {
          200: dataOf(Type.Object({ things: Type.Array(ThingSummary), next_cursor: Type.Union([Type.String(), Type.Null()]) })),
          ...errors(400, 401, 429),
        },
      },
    },
    async (request) => {
      const { group_id, installation_status, q, alerting, limit, cursor } = request.query;
      const filter = { groupId: group_id, installationStatus: installation_status, q, alerting, limit, cursor };
      const page = await listThings(deps, request.client, filter);
      return { data: { things: page.things.map(presentThingSummary), next_cursor: page.nextCursor } };
    },
  );
  app.get(
    '/things/:tuid',
    {
      schema: {
        operationId: 'getThing',
        tags: ['things'],
        summary: 'Read the summary of a thing',
        params: TuidParams,
        response: { 200: dataOf(ThingSummary), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { tuid } = request.params;
      return { data: presentThingSummary(await requireThing(deps, request.client, tuid)) };
    },
  );
}
