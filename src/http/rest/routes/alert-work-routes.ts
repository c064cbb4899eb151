import { Type } from '@sinclair/typebox';
import { alertSeverities } from '../../../domain/alerts/alert-types.js';
import { acknowledgeAlerts, acknowledgementLimits, alertPageLimit, listAlertWork } from '../../../domain/alerts/alert-work.js';
import { presentAlertWorkItem } from '../presenters.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { AlertWorkItem, dataOf, errors } from '../schemas.js';

const TuidFilter = Type.String({ pattern: '^[A-Za-z0-9._:-]{1,64}$' });
const AlertListQuery = Type.Object({
  state: Type.Optional(Type.String({ enum: ['open', 'closed'] })),
  alert_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "e.g. 'gateway connection lost'" })),
  severity: Type.Optional(Type.String({ enum: [...alertSeverities] })),
  group_id: Type.Optional(Type.String({ description: 'the group when the period opened; `unassigned` for none' })),
  tuid: Type.Optional(TuidFilter),
  gateway_tuid: Type.Optional(Type.String({ ...TuidFilter, description: 'the gateway when the period opened' })),
  incident_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  acknowledged: Type.Optional(Type.Boolean()),
  from: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds: periods overlapping from..to' })),
  to: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds' })),
  limit: Type.Optional(Type.Integer({ minimum: alertPageLimit.min, maximum: alertPageLimit.max, default: alertPageLimit.default })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: '`next_cursor` of the previous page' })),
});
const Note = Type.Optional(Type.Union([Type.String({ maxLength: acknowledgementLimits.noteMaxLength }), Type.Null()]));
const AcknowledgeOneBody = Type.Object({ note: Note }, { additionalProperties: false });
const AcknowledgeManyBody = Type.Object(
  {
    incident_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    ids: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: acknowledgementLimits.maxIds })),
    note: Note,
  },
  { additionalProperties: false, description: 'exactly one of `incident_id` or `ids`' },
);
const fieldNames = {
  alertType: 'alert_type',
  groupId: 'group_id',
  gatewayTuid: 'gateway_tuid',
  incidentId: 'incident_id',
} as const;

/** SPEC section 16: alert periods across things as work items, and their acknowledgement. */
export function registerAlertWorkRoutes(app: RestApp, deps: RestDeps): void {
  const zone = deps.config.alertTimeZone;
  const tags = ['alerts'];
  app.get(
    '/alerts',
    {
      config: { fieldNames },
      schema: {
        operationId: 'listAlertPeriods',
        tags,
        summary: "The organization's alert periods across things, newest first, a page at a time",
        querystring: AlertListQuery,
        response: {
          200: dataOf(Type.Object({ alerts: Type.Array(AlertWorkItem), next_cursor: Type.Union([Type.String(), Type.Null()]) })),
          ...errors(400, 401, 429),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listAlertWork(deps, request.client, {
        state: q.state,
        alertType: q.alert_type,
        severity: q.severity,
        groupId: q.group_id,
        tuid: q.tuid,
        gatewayTuid: q.gateway_tuid,
        incidentId: q.incident_id,
        acknowledged: q.acknowledged,
        from: q.from,
        to: q.to,
        limit: q.limit,
        cursor: q.cursor,
      });
      return { data: { alerts: page.alerts.map((item) => presentAlertWorkItem(item, zone)), next_cursor: page.nextCursor } };
    },
  );
  app.post(
    '/alerts/:id/acknowledge',
    {
      schema: {
        operationId: 'acknowledgeAlertPeriod',
        tags,
        summary: 'Mark one alert period seen (it stays open until its condition clears)',
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        body: AcknowledgeOneBody,
        response: { 200: dataOf(AlertWorkItem), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const [period] = await acknowledgeAlerts(deps, request.client, { ids: [request.params.id], note: request.body.note });
      return { data: presentAlertWorkItem(period!, zone) };
    },
  );
  app.post(
    '/alerts/acknowledge',
    {
      config: { fieldNames },
      schema: {
        operationId: 'acknowledgeAlertPeriods',
        tags,
        summary: 'Mark every period of an incident, or several periods by id, seen',
        body: AcknowledgeManyBody,
        response: { 200: dataOf(Type.Object({ alerts: Type.Array(AlertWorkItem) })), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { incident_id, ids, note } = request.body;
      const periods = await acknowledgeAlerts(deps, request.client, { incidentId: incident_id, ids, note });
      return { data: { alerts: periods.map((item) => presentAlertWorkItem(item, zone)) } };
    },
  );
}
