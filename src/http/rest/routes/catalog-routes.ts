import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { eventDefinitions, getMessageDefinition, messageDefinitions } from '../../../catalog/index.js';
import { notFound } from '../../../domain/errors.js';
import type { RestApp } from '../rest-deps.js';
import { CatalogEvent, CatalogMessage } from '../catalog-schemas.js';
import { dataOf, errors } from '../schemas.js';

// The definitions are plain JSON (src/catalog/types.ts), sent as JSON.stringify writes them: the 200 schemas
// document them for the OpenAPI document and take no part in writing them.
function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return reply
    .type('application/json; charset=utf-8')
    .serializer((payload) => payload as string)
    .send(text as never);
}

/** `GET /catalog` and `GET /catalog/{tsmId}`: the message catalog of seed 002, served from its one definition. */
export function registerCatalogRoutes(app: RestApp): void {
  const catalogJson = JSON.stringify({ data: { messages: messageDefinitions, events: eventDefinitions } });
  app.get(
    '/catalog',
    {
      schema: {
        operationId: 'getCatalog',
        tags: ['catalog'],
        summary: 'Every message id, its fields, value sets and events',
        response: {
          200: dataOf(Type.Object({ messages: Type.Array(Type.Ref(CatalogMessage)), events: Type.Array(Type.Ref(CatalogEvent)) })),
          ...errors(401, 429),
        },
      },
    },
    async (_request, reply) => sendJsonText(reply, catalogJson),
  );
  app.get(
    '/catalog/:tsmId',
    {
      schema: {
        operationId: 'getCatalogMessage',
        tags: ['catalog'],
        summary: 'One message id of the catalog',
        params: Type.Object({ tsmId: Type.Integer({ minimum: 0 }) }),
        response: { 200: dataOf(Type.Ref(CatalogMessage)), ...errors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const { tsmId } = request.params;
      const definition = getMessageDefinition(tsmId);
      if (!definition) throw notFound(`Message id ${tsmId} is not in the catalog.`);
      return sendJsonText(reply, JSON.stringify({ data: definition }));
    },
  );
}
