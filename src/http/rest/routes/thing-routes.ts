import type { FastifyInstance } from 'fastify';
import { requireThing } from '../../../domain/things/thing-access.js';
import { presentThingSummary } from '../presenters.js';
import type { RestDeps } from '../rest-deps.js';
import { ThingSummary, TuidParams, dataOf, errors } from '../schemas.js';

/** Endpoint 2: `GET /things/{tuid}`, the thing summary. */
export function registerThingRoutes(app: FastifyInstance, deps: RestDeps): void {
  app.get(
    '/things/:tuid',
    {
      schema: {
        tags: ['things'],
        summary: 'Read the summary of a thing',
        params: TuidParams,
        response: { 200: dataOf(ThingSummary), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { tuid } = request.params as { tuid: string };
      return { data: presentThingSummary(await requireThing(deps, request.client, tuid)) };
    },
  );
}
