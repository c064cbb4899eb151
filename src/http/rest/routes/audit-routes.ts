import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import {
  auditListLimit,
  exportAuditEntries,
  listAuditEntries,
  requireAuditReader,
  verifyAuditChain,
} from '../../../domain/audit/audit-service.js';
import type { AuditEntry } from '../../../domain/audit/audit-types.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { dataOf, errors } from '../schemas.js';
import { auditEntryExample } from '../openapi-examples.js';

const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
export const AuditEntryBody = Type.Object(
  {
    id: Type.Integer({ description: "Counts from 1 in each organization's log" }),
    at: Type.String({ description: 'ISO 8601 UTC with milliseconds' }),
    organization_id: Type.String(),
    actor: Type.Object({
      type: Type.Union([Type.Literal('user'), Type.Literal('api_client'), Type.Literal('cli'), Type.Literal('system')]),
      id: Type.Union([Type.String(), Type.Null()]),
      label: Type.Union([Type.String(), Type.Null()], { description: "The user's e-mail, the client's client_id" }),
    }),
    via: Type.Union([Type.Literal('rest'), Type.Literal('graphql'), Type.Literal('cli'), Type.Literal('mqtt'), Type.Literal('system')]),
    request_id: Type.Union([Type.String(), Type.Null()]),
    address: Type.Union([Type.String(), Type.Null()]),
    action: Type.String({ description: '`group.create`, `auth.login_failed`, `graphql.sendCommands` (denied) ...' }),
    target: Type.Object({ type: Type.String(), id: Type.Union([Type.String(), Type.Null()]) }),
    changes: Type.Union([Type.Record(Type.String(), Type.Object({ from: Scalar, to: Scalar })), Type.Null()], {
      description: '{field: {from, to}}; never a secret',
    }),
    outcome: Type.Union([Type.Literal('success'), Type.Literal('denied')]),
    hash: Type.String({
      description: "SHA-256 (hex) of the previous entry's hash and this entry's RFC 8785 JSON without hash (docs/audit.md)",
    }),
  },
  { description: 'An audit log entry (SPEC 14)' },
);

const ListQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'Unix seconds or ISO 8601, inclusive' })),
  to: Type.Optional(Type.String({ description: 'Unix seconds or ISO 8601, inclusive' })),
  actor: Type.Optional(Type.String({ maxLength: 320, description: "the actor's id or label" })),
  action: Type.Optional(Type.String({ maxLength: 100 })),
  target_type: Type.Optional(Type.String({ maxLength: 40 })),
  target_id: Type.Optional(Type.String({ maxLength: 320 })),
  limit: Type.Optional(
    Type.Integer({
      minimum: auditListLimit.min,
      maximum: auditListLimit.max,
      description: `at most this many; ${auditListLimit.default} when absent`,
    }),
  ),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: '`next_cursor` of the previous page' })),
});

const Verification = Type.Object({
  ok: Type.Boolean(),
  checked: Type.Integer({ description: 'entries checked from the anchor' }),
  first_invalid: Type.Union([
    Type.Object({ id: Type.Integer(), reason: Type.Union([Type.Literal('changed'), Type.Literal('removed'), Type.Literal('inserted')]) }),
    Type.Null(),
  ]),
});

/** An entry as REST and the export show it, and as its hash covers it (plus `hash`). */
export function presentAuditEntry(entry: AuditEntry) {
  return {
    id: entry.id,
    at: new Date(entry.at).toISOString(),
    organization_id: entry.organizationId,
    actor: entry.actor,
    via: entry.via,
    request_id: entry.requestId,
    address: entry.address,
    action: entry.action,
    target: entry.target,
    changes: entry.changes,
    outcome: entry.outcome,
    hash: entry.hash,
  };
}

/** `GET /audit`, `GET /audit/verify`, `GET /audit/export` (SPEC 14): the organization's audit log. */
export function registerAuditRoutes(app: RestApp, deps: RestDeps): void {
  const tags = ['audit'];
  app.get(
    '/audit',
    {
      config: { fieldNames: { targetType: 'target_type', targetId: 'target_id' } },
      schema: {
        operationId: 'listAuditEntries',
        tags,
        summary: "The organization's audit log, newest first, filtered, a page at a time",
        querystring: ListQuery,
        response: {
          200: dataOf(Type.Object({ entries: Type.Array(AuditEntryBody), next_cursor: Type.Union([Type.String(), Type.Null()]) })),
          ...errors(400, 401, 403, 429),
        },
      },
    },
    async (request) => {
      const { target_type, target_id, ...rest } = request.query;
      const page = await listAuditEntries(deps, request.client, { ...rest, targetType: target_type, targetId: target_id });
      return { data: { entries: page.entries.map(presentAuditEntry), next_cursor: page.nextCursor } };
    },
  );
  app.get(
    '/audit/verify',
    {
      schema: {
        operationId: 'verifyAuditLog',
        tags,
        summary: "Checks the organization's hash chain and names the first entry changed, removed or inserted",
        response: { 200: dataOf(Verification), ...errors(401, 403, 429) },
      },
    },
    async (request) => {
      requireAuditReader(request.client);
      const result = await verifyAuditChain(deps, request.client.organizationId);
      return { data: { ok: result.ok, checked: result.checked, first_invalid: result.firstInvalid } };
    },
  );
  app.get(
    '/audit/export',
    {
      schema: {
        operationId: 'exportAuditLog',
        tags,
        summary: "The organization's whole audit log as NDJSON, oldest first (streamed)",
        response: {
          200: {
            description: 'One entry per line, as `GET /audit` shows it',
            content: {
              'application/x-ndjson': {
                schema: { type: 'string', description: 'newline-delimited JSON' },
                example: `${JSON.stringify(auditEntryExample)}\n`,
              },
            },
          },
          ...errors(401, 403, 429),
        },
      },
    },
    async (request, reply) => {
      const pages = exportAuditEntries(deps, request.client);
      async function* lines() {
        for await (const page of pages) yield page.map((entry) => JSON.stringify(presentAuditEntry(entry)) + '\n').join('');
      }
      reply.type('application/x-ndjson; charset=utf-8');
      return reply.send(Readable.from(lines(), { objectMode: false }));
    },
  );
}
