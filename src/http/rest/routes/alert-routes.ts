import { Type } from '@sinclair/typebox';
import { countActiveAlerts, listAlertingTuids, listThingAlerts } from '../../../domain/alerts/alert-queries.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { TuidParams, dataOf, errors } from '../schemas.js';

const AlertRecord = Type.Object({
  tuid: Type.String(),
  alert_type: Type.String(),
  alerts: Type.Array(
    Type.Object({
      from: Type.String({ description: 'local date-time YYYY-MM-DDTHH:MM:SS in ALERT_TIMEZONE' }),
      to: Type.Union([Type.String(), Type.Null()], { description: 'null while the alert is active' }),
    }),
  ),
});

/** Endpoint 6 (`GET /things/{tuid}/alerts`) and the organization-wide `GET /things/alerts` and `/things/alerts/count`. */
export function registerAlertRoutes(app: RestApp, deps: RestDeps): void {
  const queryDeps = { ...deps, timeZone: deps.config.alertTimeZone };
  app.get(
    '/things/:tuid/alerts',
    {
      schema: {
        operationId: 'listThingAlerts',
        tags: ['alerts'],
        summary: "A thing's alert periods overlapping from..to (default: the last 7 days)",
        params: TuidParams,
        querystring: Type.Object({
          from: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds' })),
          to: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds' })),
        }),
        response: { 200: dataOf(Type.Array(AlertRecord)), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { tuid } = request.params;
      const { from, to } = request.query;
      return { data: await listThingAlerts(queryDeps, request.client, { tuid, from, to }) };
    },
  );
  app.get(
    '/things/alerts',
    {
      schema: {
        operationId: 'listAlertingThings',
        tags: ['alerts'],
        summary: 'Things with an active alert',
        response: { 200: dataOf(Type.Object({ alerting_tuids: Type.Array(Type.String()) })), ...errors(401, 429) },
      },
    },
    async (request) => ({ data: { alerting_tuids: await listAlertingTuids(deps, request.client) } }),
  );
  app.get(
    '/things/alerts/count',
    {
      schema: {
        operationId: 'countActiveAlerts',
        tags: ['alerts'],
        summary: 'Number of active alerts',
        response: { 200: dataOf(Type.Object({ alert_count: Type.Integer() })), ...errors(401, 429) },
      },
    },
    async (request) => ({ data: { alert_count: await countActiveAlerts(deps, request.client) } }),
  );
}
