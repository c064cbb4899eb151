import { Type } from '@sinclair/typebox';
import { listMessages, messageLimit } from '../../../domain/messages/message-query.js';
import { dataArrayJson } from '../presenters.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { TuidParams, errors } from '../schemas.js';

/** A list of ids in a query string, as the message endpoints take them (`messageid`, `eventid`). */
export const idList = Type.String({
  pattern: '^\\s*\\d{1,10}\\s*(,\\s*\\d{1,10}\\s*)*$',
  description: 'comma-separated integers',
  'x-expected': 'comma-separated whole numbers',
});

const MessageQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: messageLimit.min, maximum: messageLimit.max, description: 'required: newest N messages' }),
    messageid: Type.Optional({ ...idList, description: 'comma-separated message ids (tsmId)' }),
    eventid: Type.Optional({ ...idList, description: 'comma-separated event ids (tsmEv)' }),
    from: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds, inclusive' })),
    to: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds, inclusive' })),
  },
  { required: ['limit'] },
);

/** Endpoint 3: `GET /things/{tuid}/messages`, newest first, each message as stored plus `deploymentGroupId`. */
export function registerMessageRoutes(app: RestApp, deps: RestDeps): void {
  app.get(
    '/things/:tuid/messages',
    {
      schema: {
        operationId: 'listThingMessages',
        tags: ['messages'],
        summary: "List a thing's messages, newest first",
        params: TuidParams,
        querystring: MessageQuery,
        response: {
          200: { description: '`{data: [message]}`: each message as received plus deploymentGroupId', type: 'object' },
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { tuid } = request.params;
      const { limit, messageid, eventid, from, to } = request.query;
      const messages = await listMessages(deps, request.client, {
        tuid,
        limit,
        messageIds: parseIdList(messageid),
        eventIds: parseIdList(eventid),
        from,
        to,
      });
      // Stored messages are already JSON: splice them into the envelope instead of parsing and serializing again.
      return reply
        .type('application/json; charset=utf-8')
        .serializer((payload) => payload as string)
        .send(dataArrayJson(messages));
    },
  );
}

/** The ids of an `idList` parameter (already checked by its pattern), or undefined when absent. */
export function parseIdList(text: string | undefined): number[] | undefined {
  return text === undefined ? undefined : text.split(',').map((part) => Number(part.trim()));
}
