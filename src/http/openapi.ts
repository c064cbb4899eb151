import { STATUS_CODES } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { ErrorCode } from '../domain/errors.js';
import { httpStatusOf } from './problem.js';
import { operationExamples } from './rest/openapi-examples.js';
import { openApiWebhooks } from './rest/openapi-webhooks.js';

/**
 * OpenAPI 3.1 generated from the same TypeBox schemas that validate requests (`GET /openapi.json`), and a docs
 * page rendering it (`GET /docs`, assets served from the package: no CDN). Must be registered before the routes.
 * Paths are relative to the one server, REST_BASE_PATH; every operation has an `operationId` named after it
 * (set on its route), and every status it can answer (documentedResponses).
 */
export async function registerOpenApi(app: FastifyInstance, options: { restBasePath: string; version: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'thingdesk REST API',
        version: options.version,
        license: { name: 'Proprietary (package.json: UNLICENSED)', identifier: 'LicenseRef-Proprietary' },
        description:
          'Device management REST interface (seed 000 and SPEC section 3). Every success is HTTP 200 with `{"data": ...}`; every error is `{statusCode, error, message, code, errors?}`. Get a token from `POST /auth/client-token` and send it as `Authorization: Bearer <token>`.',
      },
      servers: [{ url: options.restBasePath, description: 'This platform (REST_BASE_PATH, relative to the host serving this document)' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    // Shared schemas (ErrorBody, CatalogMessage, ...) keep their names in components.schemas.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    // SPEC section 11: what the platform POSTs to webhook receivers.
    transformObject: (documentObject) =>
      ({ ...(documentObject as { openapiObject: object }).openapiObject, webhooks: openApiWebhooks() }) as never,
    // Only the REST interface belongs in this document; health, metrics, JWKS and GraphQL are documented elsewhere.
    transform: ({ schema, url, route }) => {
      if (!url.startsWith(options.restBasePath)) return { schema: { ...schema, hide: true } as typeof schema, url };
      const isPublic = route.config?.public === true;
      const examples = operationExamples[(schema as RouteSchema).operationId ?? ''];
      const documented = {
        ...schema,
        ...(schema.body !== undefined &&
          examples?.request !== undefined && { body: { ...(schema.body as object), examples: [examples.request] } }),
        response: documentedResponses(schema as RouteSchema, isPublic, examples?.response),
        ...(isPublic && { security: [] }),
      };
      return { schema: documented as typeof schema, url: url.slice(options.restBasePath.length) || '/' };
    },
  });
  // The docs page, its assets and /docs/json in a scope of their own, so the headers below reach every answer there.
  await app.register(async (docs) => {
    docs.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', docsContentSecurityPolicy);
      reply.header('x-frame-options', 'DENY');
      reply.header('x-content-type-options', 'nosniff');
      return payload;
    });
    // validatorUrl null: no badge fetched from validator.swagger.io (the policy would refuse it anyway).
    await docs.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: false, validatorUrl: null } });
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

interface RouteSchema {
  operationId?: string;
  params?: unknown;
  querystring?: unknown;
  body?: unknown;
  response?: Record<string, Record<string, unknown>>;
}

const errorBody = { $ref: 'ErrorBody' };

/**
 * The docs page's Content-Security-Policy: Swagger UI loads its scripts and styles from files of this server (no
 * inline script: 'self' is all it needs), sets element styles (inline attributes), shows data: images and fetches
 * the document from /docs/json. No page of another site may frame it (clickjacking: frame-ancestors, and
 * X-Frame-Options for browsers that predate it).
 */
export const docsContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The error codes each status carries, for the response descriptions. */
const codesByStatus = new Map<number, ErrorCode[]>();
for (const [code, status] of Object.entries(httpStatusOf) as [ErrorCode, number][])
  codesByStatus.set(status, [...(codesByStatus.get(status) ?? []), code]);

/**
 * A route's responses as it declares them (200 and its own errors: 404, 409, ...) plus what every route of its
 * kind can answer: 400 for a route with input, 413 and 415 for one with a body, 401 unless public, and 429, 500
 * and 503 (store or broker not reachable) for all. Each gets a description naming its error codes.
 */
function documentedResponses(schema: RouteSchema, isPublic: boolean, successExample: unknown): Record<string, unknown> {
  const statuses = new Set(Object.keys(schema.response ?? {}).map(Number));
  if (schema.params || schema.querystring || schema.body) statuses.add(400);
  if (schema.body) [413, 415].forEach((status) => statuses.add(status));
  if (!isPublic) statuses.add(401);
  [429, 500, 503].forEach((status) => statuses.add(status));
  const responses: Record<string, unknown> = {};
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const declared = schema.response?.[String(status)];
    if (status === 200) {
      responses[status] = {
        ...declared,
        description: (declared?.description as string | undefined) ?? 'Success: `{"data": ...}`',
        ...(successExample !== undefined && { examples: [successExample] }),
      };
      continue;
    }
    const codes = codesByStatus.get(status) ?? [];
    responses[status] = {
      allOf: [declared ?? errorBody],
      description: `${STATUS_CODES[status]}: ${codes.map((code) => `\`${code}\``).join(' or ')}`,
      examples: [errorExample(status, codes[0]!)],
    };
  }
  return responses;
}

const exampleMessages: Record<number, string> = {
  400: 'limit must be a whole number from 1 to 1000',
  401: 'Send a client token as Authorization: Bearer <token>.',
  404: 'No thing SENSOR-0042.',
  409: 'Group north already exists.',
  413: 'The request body is larger than 1 MiB.',
  415: 'The request body must be JSON (Content-Type: application/json).',
  429: 'Too many requests; retry after 12 seconds.',
  500: 'An unexpected error occurred.',
  503: 'The store is not reachable right now; retry later.',
};

/** An error body of the status, as the error handler writes it (problem.ts). */
function errorExample(status: number, code: ErrorCode): Record<string, unknown> {
  const example: Record<string, unknown> = {
    statusCode: status,
    error: STATUS_CODES[status],
    message: exampleMessages[status] ?? STATUS_CODES[status],
    code,
  };
  if (code === 'VALIDATION_FAILED') example.errors = [{ field: 'limit', message: exampleMessages[400] }];
  return example;
}
