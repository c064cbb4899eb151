import { Type } from '@sinclair/typebox';
import { fleetHealthLimits, readFleetHealth } from '../../../domain/fleet/fleet-health.js';
import { presentFleetHealth } from '../presenters.js';
import { workOfResponse } from '../../abandoned-requests.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { FleetHealth, dataOf, errors } from '../schemas.js';

const { days, limit, batteryBelow } = fleetHealthLimits;
const FleetHealthQuery = Type.Object({
  days: Type.Optional(
    Type.Integer({ minimum: days.min, maximum: days.max, description: `the uptime window in days (default ${days.default})` }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: limit.min, maximum: limit.max, description: `entries per list (default ${limit.default})` }),
  ),
  battery_below: Type.Optional(
    Type.Integer({
      minimum: batteryBelow.min,
      maximum: batteryBelow.max,
      description: 'low battery threshold in percent (default BATTERY_LOW_PERCENT)',
    }),
  ),
});

/** The fleet overview (SPEC section 10, issue 14): the same domain function as GraphQL `fleetHealth`. */
export function registerFleetRoutes(app: RestApp, deps: RestDeps): void {
  const healthDeps = { ...deps, timeZone: deps.config.alertTimeZone, batteryLowPercent: deps.config.batteryLowPercent };
  app.get(
    '/fleet/health',
    {
      config: { fieldNames: { batteryBelow: 'battery_below' } },
      schema: {
        operationId: 'getFleetHealth',
        tags: ['fleet'],
        summary: 'The fleet at a glance: things per status, alerting things, silent gateways, low batteries, a health line per group',
        querystring: FleetHealthQuery,
        response: { 200: dataOf(FleetHealth), ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { days, limit, battery_below } = request.query;
      const input = { days, limit, batteryBelow: battery_below };
      return { data: presentFleetHealth(await readFleetHealth(healthDeps, request.client, input, workOfResponse(reply.raw))) };
    },
  );
}
