import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../domain/errors.js';
import { importLimits, tooManyBytes, type ImportFormat } from '../../../domain/provisioning/import-limits.js';
import { importThings } from '../../../domain/provisioning/thing-import.js';
import { importMqttCredentials } from '../../../domain/provisioning/mqtt-credential-import.js';
import { stringify } from 'csv-stringify/sync';
import type { ImportPlan } from '../../../domain/provisioning/thing-import-types.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { dataOf, errors } from '../schemas.js';
import { validatorCompiler } from '../../validator-compiler.js';
import { exportThings } from '../../../domain/provisioning/thing-export.js';
import { importPlanStream } from '../import-plan-stream.js';
import { sendExport } from './message-export-routes.js';
import { ThingListQuery } from './thing-routes.js';

const ImportQuery = Type.Object({
  dry_run: Type.Optional(Type.Boolean({ description: '`true`: answer the plan and change nothing' })),
  rows: Type.Optional(
    Type.String({ enum: ['all', 'changed'], description: '`changed`: leave the `unchanged` rows out of `rows` (the counts keep them)' }),
  ),
  create_groups: Type.Optional(
    Type.Boolean({ description: '`true`: create the groups the file names that do not exist, instead of refusing those rows' }),
  ),
});

const Change = Type.Object({ from: Type.Unknown(), to: Type.Unknown() });

export const ImportPlanSchema = Type.Object({
  dry_run: Type.Boolean(),
  applied: Type.Boolean(),
  counts: Type.Object({ create: Type.Integer(), update: Type.Integer(), unchanged: Type.Integer(), error: Type.Integer() }),
  rows: Type.Array(
    Type.Object({
      row: Type.Integer({ description: 'the line where the record starts: the CSV header is line 1; NDJSON lines count from 1' }),
      tuid: Type.String(),
      action: Type.String({ enum: ['create', 'update', 'unchanged', 'error'] }),
      changes: Type.Optional(Type.Record(Type.String(), Change, { description: 'each changed field: `{from, to}`' })),
      errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    }),
  ),
});

const CredentialPlanSchema = Type.Object({
  dry_run: Type.Boolean(),
  applied: Type.Boolean(),
  counts: ImportPlanSchema.properties.counts,
  rows: Type.Array(
    Type.Object({
      row: Type.Integer(),
      username: Type.String(),
      kind: Type.String(),
      action: Type.String({ enum: ['create', 'error'] }),
      password: Type.Optional(Type.String({ description: 'the generated password, shown this once' })),
      errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    }),
  ),
});

const csvExample =
  'tuid,name,group_id,installation_status,label.site,label.room\r\nSENSOR-0042,"Pump 4, boiler room",north,installed,helsinki-3,b-204\r\n';
const ndjsonExample =
  '{"tuid":"SENSOR-0042","name":"Pump 4, boiler room","group_id":"north","installation_status":"installed","labels":{"site":"helsinki-3"}}\n';

/** The media types an import reads; anything else is 415. */
const importMediaTypes: Record<string, ImportFormat> = { 'text/csv': 'csv', 'application/x-ndjson': 'ndjson' };

/** `POST /things/import` (SPEC section 12): CSV or NDJSON, planned, applied all or none. API clients only (REST). */
export function registerThingImportRoutes(app: RestApp, deps: RestDeps): void {
  app.register(async (scope) => {
    // Only this scope reads CSV and NDJSON, as a stream: the domain counts its bytes (20 MiB) as it reads.
    scope.addContentTypeParser(Object.keys(importMediaTypes), (_request, payload, done) => done(null, payload));
    scope.post(
      '/things/import',
      {
        bodyLimit: importLimits.maxBytes,
        schema: {
          operationId: 'importThings',
          tags: ['things'],
          summary: 'Import things from CSV or NDJSON: plan (dry run) or apply all rows or none',
          description:
            'Columns / keys: `tuid` (required), `name`, `group_id`, `installation_status`, and per label a CSV column `label.<key>` (NDJSON: an object `labels`, which replaces all labels). An empty CSV cell or a missing column leaves that field as it is. At most 100,000 rows or 20 MiB (413). A file with any error row applies nothing: 400 naming each bad field as `rows[<row>].<column>`. See docs/provisioning.md.',
          querystring: ImportQuery,
          body: {
            content: {
              'text/csv': {
                schema: { type: 'string', description: 'RFC 4180 CSV with a header row, UTF-8 (a BOM is allowed)', examples: [csvExample] },
              },
              'application/x-ndjson': { schema: { type: 'string', description: 'one JSON object per line', examples: [ndjsonExample] } },
            },
          },
          response: { 200: dataOf(ImportPlanSchema), ...errors(400, 401, 409, 413, 415, 429) },
        },
        // The body is a stream: nothing for a schema to check (the domain reads and checks it).
        validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route)),
      },
      async (request, reply) => {
        const format = formatOf(request.headers);
        const { dry_run, rows, create_groups } = request.query as { dry_run?: boolean; rows?: string; create_groups?: boolean };
        const plan = await importThings(deps, request.client, {
          body: request.body as Readable,
          format,
          dryRun: dry_run === true,
          createGroups: create_groups === true,
          onlyChanged: rows === 'changed',
        });
        // Streamed: a plan of 100,000 rows is tens of megabytes of JSON (import-plan-stream.ts).
        return reply.type('application/json; charset=utf-8').send(importPlanStream(plan));
      },
    );
    scope.post(
      '/mqtt-credentials/import',
      {
        bodyLimit: importLimits.maxBytes,
        schema: {
          operationId: 'importMqttCredentials',
          tags: ['mqtt-credentials'],
          summary:
            'Import MQTT credentials from CSV or NDJSON (username, kind, password?): all rows or none; generated passwords shown once',
          description:
            'Rows `username`, `kind` (gateway or integration) and `password` (empty: generated, and answered once in `rows[].password`). An existing username, or one repeated in the file, is an error row. `Accept: text/csv` answers an applied import as CSV (`row,username,kind,action,password`) for the installers of the gateways.',
          querystring: Type.Object({ dry_run: ImportQuery.properties.dry_run }),
          body: {
            content: {
              'text/csv': {
                schema: { type: 'string', examples: ['username,kind,password\r\ngw-site-1,gateway,\r\nfeed-1,integration,\r\n'] },
              },
              'application/x-ndjson': { schema: { type: 'string', examples: ['{"username":"gw-site-1","kind":"gateway"}\n'] } },
            },
          },
          response: {
            200: {
              description: 'The plan; with `Accept: text/csv`, an applied import as CSV',
              content: {
                'application/json': {
                  schema: dataOf(CredentialPlanSchema),
                  example: {
                    data: {
                      dry_run: false,
                      applied: true,
                      counts: { create: 1, update: 0, unchanged: 0, error: 0 },
                      rows: [{ row: 2, username: 'gw-site-1', kind: 'gateway', action: 'create', password: 'hS1v…(shown once)' }],
                    },
                  },
                },
                'text/csv': {
                  schema: { type: 'string' },
                  example: 'row,username,kind,action,password\r\n2,gw-site-1,gateway,create,hS1v…\r\n',
                },
              },
            },
            ...errors(400, 401, 409, 413, 415, 429),
          },
        },
        validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route)),
      },
      async (request, reply) => {
        const format = formatOf(request.headers);
        const { dry_run } = request.query as { dry_run?: boolean };
        const plan = await importMqttCredentials(deps, request.client, {
          body: request.body as Readable,
          format,
          dryRun: dry_run === true,
        });
        if (plan.applied && request.headers.accept?.includes('text/csv')) {
          const records = plan.rows.map((r) => [r.row, r.username, r.kind, r.action, r.password ?? '']);
          return reply
            .type('text/csv; charset=utf-8')
            .send(stringify([['row', 'username', 'kind', 'action', 'password'], ...records], { record_delimiter: 'windows' }));
        }
        return reply.type('application/json; charset=utf-8').send({ data: presentImportPlan(plan) });
      },
    );
  });
}

/** The import format of a request's Content-Type, UNSUPPORTED_MEDIA_TYPE for any other; 413 for a declared length over 20 MiB. */
function formatOf(headers: { 'content-type'?: string; 'content-length'?: string }): ImportFormat {
  const mediaType = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const format = importMediaTypes[mediaType];
  if (!format) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'An import is CSV (Content-Type: text/csv) or NDJSON (application/x-ndjson).');
  if (Number(headers['content-length'] ?? 0) > importLimits.maxBytes) throw tooManyBytes();
  return format;
}

const ExportQuery = Type.Object({
  ...Type.Omit(ThingListQuery, ['limit', 'cursor']).properties,
  format: Type.Optional(Type.String({ enum: ['csv', 'ndjson'], description: '`csv` (default) or `ndjson`' })),
});

const exportResponse = {
  description:
    'The things by TUID, streamed, in the columns the import reads (CSV: a `label.<key>` column per label key the organization uses), so that importing the export plans every row `unchanged`. Values as stored (no spreadsheet-formula escaping). Sent as an attachment.',
  content: {
    'text/csv': { schema: { type: 'string', description: 'RFC 4180 CSV, UTF-8, CRLF' }, example: csvExample },
    'application/x-ndjson': { schema: { type: 'string', description: 'one JSON object per line' }, example: ndjsonExample },
  },
};

/** `GET /things/export` (SPEC section 12): the things as an import file, filtered as GET /things is. */
export function registerThingExportRoutes(app: RestApp, deps: RestDeps): void {
  app.get(
    '/things/export',
    {
      config: {
        fieldNames: {
          groupId: 'group_id',
          installationStatus: 'installation_status',
          gatewayTuid: 'gateway_tuid',
          batteryBelow: 'battery_below',
          silentForS: 'silent_for_s',
        },
      },
      schema: {
        operationId: 'exportThings',
        tags: ['things'],
        summary: 'Export the things as CSV or NDJSON in the columns the import reads (streamed)',
        querystring: ExportQuery,
        response: { 200: exportResponse, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { group_id, installation_status, q, alerting, label, format, gateway_tuid, battery_below, silent_for_s } = request.query;
      const labels = label === undefined ? undefined : typeof label === 'string' ? [label] : label;
      const exported = await exportThings(deps, request.client, {
        groupId: group_id,
        installationStatus: installation_status,
        q,
        alerting,
        labels,
        gatewayTuid: gateway_tuid,
        batteryBelow: battery_below,
        silentForS: silent_for_s,
        format,
      });
      return sendExport(reply, exported, deps.config.exportStallTimeoutS);
    },
  );
}

/** The plan as REST shows it. */
export function presentImportPlan<Row>(plan: ImportPlan<Row>) {
  return { dry_run: plan.dryRun, applied: plan.applied, counts: plan.counts, rows: plan.rows };
}
