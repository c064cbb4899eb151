import { Type } from '@sinclair/typebox';
import { countThings, exactTotalLimit, listThings, thingPageLimit } from '../../../domain/things/thing-queries.js';
import { thingSortKeys } from '../../../domain/things/thing-list-types.js';
import { installationStatuses } from '../../../domain/things/thing-types.js';
import { requireThing } from '../../../domain/things/thing-access.js';
import { updateThing } from '../../../domain/things/thing-update.js';
import { presentThingSummary } from '../presenters.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { ThingSummary, TuidParams, dataOf, errors } from '../schemas.js';

export const ThingListQuery = Type.Object({
  group_id: Type.Optional(Type.String({ description: 'a group id, or `unassigned`' })),
  installation_status: Type.Optional(Type.String({ enum: [...installationStatuses] })),
  q: Type.Optional(Type.String({ maxLength: 64, description: 'case-insensitive substring of the TUID' })),
  alerting: Type.Optional(Type.Boolean({ description: '`true`: only things with an active alert; `false`: only things without one' })),
  gateway_tuid: Type.Optional(Type.String({ description: 'only things last heard through this gateway' })),
  battery_below: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, description: 'only things whose battery level is below this percent' }),
  ),
  silent_for_s: Type.Optional(Type.Integer({ minimum: 1, description: 'only things not heard for at least this many seconds, or never' })),
  sort: Type.Optional(
    Type.String({
      maxLength: 40,
      description: `${thingSortKeys.join(', ')}, optionally with :asc or :desc (default tuid:asc); unknown values sort last`,
    }),
  ),
  label: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: '`key:value`; repeat it to ask for several labels, all of which must match',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: thingPageLimit.min, maximum: thingPageLimit.max, default: thingPageLimit.default })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: '`next_cursor` of the previous page' })),
});

const UpdateThingBody = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: '1 to 200 characters; null clears the name' })),
    labels: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'every label of the thing (replaces them all): at most 50 keys matching `[a-z0-9_.-]{1,63}`, values of at most 200 characters',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Endpoint 2 (`GET /things/{tuid}`, the thing summary) and the list `GET /things` with filters and cursor paging. */
export function registerThingRoutes(app: RestApp, deps: RestDeps): void {
  app.get(
    '/things',
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
        operationId: 'listThings',
        tags: ['things'],
        summary: "List the organization's things, filtered and sorted, a page at a time, with their total",
        querystring: ThingListQuery,
        response: {
          200: dataOf(
            Type.Object({
              things: Type.Array(ThingSummary),
              next_cursor: Type.Union([Type.String(), Type.Null()]),
              total: Type.Integer({
                description: `things matching the filters; exact below ${exactTotalLimit}, and always exact with no filter (the whole fleet)`,
              }),
              total_is_estimate: Type.Boolean({ description: `true when the count stopped at ${exactTotalLimit}: at least that many` }),
            }),
          ),
          ...errors(400, 401, 429),
        },
      },
    },
    async (request) => {
      const query = request.query;
      const input = {
        groupId: query.group_id,
        installationStatus: query.installation_status,
        q: query.q,
        alerting: query.alerting,
        gatewayTuid: query.gateway_tuid,
        batteryBelow: query.battery_below,
        silentForS: query.silent_for_s,
        sort: query.sort,
        labels: query.label === undefined ? undefined : typeof query.label === 'string' ? [query.label] : query.label,
        limit: query.limit,
        cursor: query.cursor,
      };
      const page = await listThings(deps, request.client, input);
      const { total, totalIsEstimate } = await countThings(deps, request.client, input);
      return {
        data: { things: page.things.map(presentThingSummary), next_cursor: page.nextCursor, total, total_is_estimate: totalIsEstimate },
      };
    },
  );
  app.patch(
    '/things/:tuid',
    {
      schema: {
        operationId: 'updateThing',
        tags: ['things'],
        summary: "Set a thing's name and labels (labels replaced whole; `name: null` clears it; claims nothing)",
        params: TuidParams,
        body: UpdateThingBody,
        response: { 200: dataOf(ThingSummary), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { tuid } = request.params;
      const { name, labels } = request.body;
      return { data: presentThingSummary(await updateThing(deps, request.client, { tuid, name, labels })) };
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
