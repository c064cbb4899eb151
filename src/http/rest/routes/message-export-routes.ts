import { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { exportFormats, type ExportFormat } from '../../../domain/messages/export-format.js';
import {
  exportGroupMessages,
  exportMessageIdLimit,
  exportThingMessages,
  type MessageExport,
} from '../../../domain/messages/message-export.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { TuidParams, errors } from '../schemas.js';
import { GroupParams } from './group-routes.js';
import { idList, parseIdList } from './message-routes.js';

const ExportQuery = Type.Object({
  format: Type.Optional(
    Type.Unsafe<ExportFormat>({
      type: 'string',
      enum: [...exportFormats],
      description: '`ndjson` (default; `csv` when absent and Accept asks for text/csv) or `csv`',
    }),
  ),
  messageid: Type.Optional({
    ...idList,
    description: `comma-separated message ids (tsmId), at most ${exportMessageIdLimit}; in CSV each adds its catalog fields as columns`,
  }),
  eventid: Type.Optional({ ...idList, description: 'comma-separated event ids (tsmEv)' }),
  raw: Type.Optional(
    Type.Boolean({
      description:
        "CSV: `true` writes text cells exactly as sent, for programs. By default (`false`) a text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, so a spreadsheet does not run it as a formula; numbers are never changed",
    }),
  ),
  from: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds of tsmTs, inclusive' })),
  to: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds of tsmTs, inclusive' })),
});

const ndjsonExample =
  '{"tsmId":12100,"tsmEv":10,"tsmTs":1700000000,"tsmTuid":"SENSOR-0042","temp":21.3,"deploymentGroupId":"north"}\n' +
  '{"tsmId":1110,"tsmEv":10,"tsmTs":1700000060,"tsmTuid":"SENSOR-0042","batl":87.4,"deploymentGroupId":"north"}\n';
const csvExample =
  'tsmId,tsmEv,tsmTs,tsmTuid,tsmGw,tsmDstTuid,transactionId,deploymentGroupId,airp,humd,temp,lght,otherFields\r\n' +
  '12100,10,1700000000,SENSOR-0042,,,,north,,,21.3,,\r\n' +
  '12100,10,1700000060,SENSOR-0042,,,,north,,,21.4,,"{""note"":""door, open""}"\r\n';

/** The 200 of an export: a stream in one of two media types, documented with an example of each. */
const exportResponse = {
  description:
    "The messages, oldest first, streamed. NDJSON: one message per line exactly as `GET /things/{tuid}/messages` serves it. CSV (RFC 4180, CRLF, header row): the envelope fields and `deploymentGroupId`, the catalog fields of the `messageid`s, then `otherFields` (a JSON object of any other members); strings as they are (but a string starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'` unless `raw=true`), other values as JSON, absent members empty. Sent as an attachment (Content-Disposition). A failure after the first byte cuts the connection before the end of the chunked body.",
  headers: {
    'content-disposition': {
      type: 'string',
      description: 'attachment; filename="thing-SENSOR-0042-messages.csv"; filename*=UTF-8\'\'thing-SENSOR-0042-messages.csv',
    },
  },
  content: {
    'application/x-ndjson': { schema: { type: 'string', description: 'newline-delimited JSON' }, example: ndjsonExample },
    'text/csv': { schema: { type: 'string', description: 'RFC 4180 CSV, UTF-8' }, example: csvExample },
  },
};

/** `GET /things/{tuid}/messages/export` and `GET /groups/{groupid}/messages/export` (SPEC section 9). */
export function registerMessageExportRoutes(app: RestApp, deps: RestDeps): void {
  const fieldNames = { messageIds: 'messageid', eventIds: 'eventid', groupId: 'groupid' };
  app.get(
    '/things/:tuid/messages/export',
    {
      config: { fieldNames },
      schema: {
        operationId: 'exportThingMessages',
        tags: ['messages'],
        summary: "Export a thing's messages as NDJSON or CSV, oldest first (streamed)",
        params: TuidParams,
        querystring: ExportQuery,
        response: { 200: exportResponse, ...errors(400, 401, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const exported = await exportThingMessages(deps, request.client, {
        tuid: request.params.tuid,
        ...exportFilters(request.query, request.headers.accept),
      });
      return sendExport(reply, exported, deps.config.exportStallTimeoutS);
    },
  );
  app.get(
    '/groups/:groupid/messages/export',
    {
      config: { fieldNames },
      schema: {
        operationId: 'exportGroupMessages',
        tags: ['messages'],
        summary: "Export the messages of a group's things as NDJSON or CSV, thing by thing (streamed)",
        params: GroupParams,
        querystring: ExportQuery,
        response: { 200: exportResponse, ...errors(400, 401, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const exported = await exportGroupMessages(deps, request.client, {
        groupId: request.params.groupid,
        ...exportFilters(request.query, request.headers.accept),
      });
      return sendExport(reply, exported, deps.config.exportStallTimeoutS);
    },
  );
}

/** The filters and format of an export request, as the domain takes them (both export routes). */
function exportFilters(query: Static<typeof ExportQuery>, accept: string | undefined) {
  return {
    format: query.format ?? formatFromAccept(accept),
    raw: query.raw,
    messageIds: parseIdList(query.messageid),
    eventIds: parseIdList(query.eventid),
    from: query.from,
    to: query.to,
  };
}

/** `csv` when no `format` is given and Accept names text/csv (and not NDJSON); otherwise the domain's default. */
function formatFromAccept(accept: string | undefined): 'csv' | undefined {
  return accept?.includes('text/csv') && !accept.includes('application/x-ndjson') ? 'csv' : undefined;
}

/**
 * Streams the export. The chunks are pulled: fastify pipes the stream into the response, which stops pulling while
 * the socket's buffer is full (until 'drain') and destroys the stream when the client goes away, which ends the
 * generator and the store's read. So the server holds a bounded amount per export whatever the range or the
 * reader's pace. A client that stops reading would hold its export (on PostgreSQL a connection) for as long as it
 * keeps the socket open: once no byte has moved for `stallTimeoutS`, the connection is cut, as if it had left.
 */
export async function sendExport(reply: FastifyReply, exported: MessageExport, stallTimeoutS: number): Promise<FastifyReply> {
  reply.type(exported.contentType).header('content-disposition', exported.contentDisposition);
  // HEAD (fastify answers it with the GET route) gets the headers only: fastify would drain a stream body, reading
  // the whole range from the store to send none of it.
  if (reply.request.method === 'HEAD') return reply.send();
  // The first chunk is read before the idle timer starts: a read waiting its turn for the store (SQLite's reader
  // threads all busy with other exports) is not a client that stopped reading. A failure to start is thrown here,
  // before the first byte: an error answer.
  const chunks = exported.chunks[Symbol.asyncIterator]();
  const first = await chunks.next();
  // The socket's idle timer: reset by every byte written or read (a slow reader that moves keeps its export),
  // undone by Node when the response ends (keep-alive sets its own).
  reply.raw.setTimeout(stallTimeoutS * 1000, () => reply.raw.destroy());
  return reply.send(Readable.from(resumed(first, chunks), { objectMode: false }));
}

/** The chunks of an export from the one already read on; ending them (the response closed early) ends the read. */
async function* resumed(first: IteratorResult<string>, rest: AsyncIterator<string>): AsyncGenerator<string> {
  try {
    for (let next = first; !next.done; next = await rest.next()) yield next.value;
  } finally {
    await rest.return?.();
  }
}
