import { Type } from '@sinclair/typebox';
import { gatewayPageLimit, getGateway, listGateways } from '../../../domain/gateways/gateway-queries.js';
import { presentGateway, presentThingSummary } from '../presenters.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { GatewaySummary, ThingSummary, Tuid, dataOf, errors } from '../schemas.js';

const GatewayListQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 64, description: "case-insensitive substring of the gateway's TUID" })),
  state: Type.Optional(Type.String({ enum: ['online', 'silent'], description: 'silent: nothing heard through it for GATEWAY_TIMEOUT_S' })),
  limit: Type.Optional(Type.Integer({ minimum: gatewayPageLimit.min, maximum: gatewayPageLimit.max, default: gatewayPageLimit.default })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: '`next_cursor` of the previous page' })),
});

/** SPEC section 16: the organization's gateways as the messages name them, and one gateway with its things. */
export function registerGatewayRoutes(app: RestApp, deps: RestDeps): void {
  const tags = ['gateways'];
  app.get(
    '/gateways',
    {
      schema: {
        operationId: 'listGateways',
        tags,
        summary: "The organization's gateways by TUID, a page at a time",
        querystring: GatewayListQuery,
        response: {
          200: dataOf(Type.Object({ gateways: Type.Array(GatewaySummary), next_cursor: Type.Union([Type.String(), Type.Null()]) })),
          ...errors(400, 401, 429),
        },
      },
    },
    async (request) => {
      const { q, state, limit, cursor } = request.query;
      const page = await listGateways(deps, request.client, { q, state, limit, cursor });
      return { data: { gateways: page.gateways.map(presentGateway), next_cursor: page.nextCursor } };
    },
  );
  app.get(
    '/gateways/:tuid',
    {
      config: { fieldNames: { gatewayTuid: 'tuid' } },
      schema: {
        operationId: 'getGateway',
        tags,
        summary: 'One gateway with the things last heard through it (at most 1000, by TUID)',
        params: Type.Object({ tuid: Tuid }),
        response: {
          200: dataOf(Type.Composite([GatewaySummary, Type.Object({ things: Type.Array(ThingSummary) })])),
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (request) => {
      const gateway = await getGateway(deps, request.client, request.params.tuid);
      return { data: { ...presentGateway(gateway), things: gateway.things.map(presentThingSummary) } };
    },
  );
}
