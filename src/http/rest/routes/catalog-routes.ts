import { Type } from '@sinclair/typebox';
import { eventDefinitions, getMessageDefinition, messageDefinitions } from '../../../catalog/index.js';
import { notFound } from '../../../domain/errors.js';
import type { RestApp } from '../rest-deps.js';
import { errors } from '../schemas.js';

/** `GET /catalog` and `GET /catalog/{tsmId}`: the message catalog of seed 002, served from its one definition. */
export function registerCatalogRoutes(app: RestApp): void {
  const catalogJson = JSON.stringify({ data: { messages: messageDefinitions, events: eventDefinitions } });
  app.get(
    '/catalog',
    { schema: { tags: ['catalog'], summary: 'Every message id, its fields, value sets and events', response: { ...errors(401, 429) } } },
    async (_request, reply) => reply.type('application/json; charset=utf-8').serializer((payload) => payload as string).send(catalogJson),
  );
  app.get(
    '/catalog/:tsmId',
    {
      schema: {
        tags: ['catalog'],
        summary: 'One message id of the catalog',
        params: Type.Object({ tsmId: Type.Integer({ minimum: 0 }) }),
        response: { ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { tsmId } = request.params;
      const definition = getMessageDefinition(tsmId);
      if (!definition) throw notFound(`Message id ${tsmId} is not in the catalog.`);
      return { data: definition };
    },
  );
}
