import { Type } from '@sinclair/typebox';
import { commandTsmIds } from '../../../catalog/index.js';
import { listCommandHistory } from '../../../domain/commands/command-history.js';
import { commandsPerRequest } from '../../../domain/commands/command-rules.js';
import { sendCommands } from '../../../domain/commands/send-commands.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { CommandHistoryRecord, SentCommandRequest, TuidParams, dataOf, errors } from '../schemas.js';

// The body is checked by the domain, not by a schema, so REST and GraphQL name the same problems the same way
// (`commands`, `commands[2].reportInterval`) from the one catalog.
const CommandsBody = Type.Unknown({
  description:
    `JSON array of ${commandsPerRequest.min} to ${commandsPerRequest.max} commands, each with tsmId (${commandTsmIds.join(', ')}), ` +
    'integer tsmEv and transactionId, and the fields of its id (GET /catalog/{tsmId}); all are accepted or none',
  examples: [[{ tsmId: 1500, tsmEv: 30, transactionId: 77, measurementInterval: 60, reportInterval: 300 }]],
});

const HistoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 0, description: 'newest N requests; 0 or absent: all' })),
});

/** Endpoints 4 and 5: send commands to a thing, and read its command history. */
export function registerCommandRoutes(app: RestApp, deps: RestDeps): void {
  app.post(
    '/things/:tuid/commands',
    {
      // The body's field paths in errors start with `commands` (`commands[0].transactionId`), as the domain's do.
      config: { bodyName: 'commands' },
      schema: {
        operationId: 'sendCommands',
        tags: ['commands'],
        summary: 'Send commands to a thing: stored in its history and published on its downlink topic',
        params: TuidParams,
        body: CommandsBody,
        response: { 200: dataOf(SentCommandRequest), ...errors(400, 401, 404, 429, 503) },
      },
    },
    async (request) => {
      const { tuid } = request.params;
      return { data: await sendCommands(deps, request.client, { tuid, commands: request.body }) };
    },
  );

  app.get(
    '/things/:tuid/commands',
    {
      schema: {
        operationId: 'listCommandHistory',
        tags: ['commands'],
        summary: "Read a thing's command history, newest first",
        params: TuidParams,
        querystring: HistoryQuery,
        response: { 200: dataOf(Type.Array(CommandHistoryRecord)), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { tuid } = request.params;
      const { limit } = request.query;
      return { data: await listCommandHistory(deps, request.client, { tuid, limit }) };
    },
  );
}
