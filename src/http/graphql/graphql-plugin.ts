import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, type DocumentNode, type GraphQLError } from 'graphql';
import { parseRequestParams, type Request as GraphqlHttpRequest } from 'graphql-http';
import { createHandler as createHttpHandler } from 'graphql-http/lib/use/fastify';
import { AppError } from '../../domain/errors.js';
import { workOfResponse, type AbandonableWork } from '../abandoned-requests.js';
import type { UserPrincipal } from '../../domain/auth/principal.js';
import { bearerToken } from '../bearer-token.js';
import { httpStatusOf, toAppError } from '../problem.js';
import type { GraphqlAnswer, GraphqlContext, GraphqlDeps } from './graphql-deps.js';
import { audienceOf } from './access.js';
import { appErrorAsGraphql, formatGraphqlError } from './graphql-errors.js';
import { auditScopeHook } from '../audit-scope.js';
import { recordDeniedMutations } from './denied-mutations.js';
import { CompiledExecution } from './compiled-execution.js';
import { countOperation } from './operation-metrics.js';
import { OperationPreparer } from './operation-preparer.js';
import { RawJsonSplicer } from './raw-json.js';
import { LiveStreams } from './live-streams.js';
import { allResolvers } from './resolvers/all-resolvers.js';
import { buildRoleSchemas } from './role-schemas.js';
import { registerExplorerAssets, sendExplorerPage, wantsExplorer } from './graphql-explorer.js';
import { registerSchemaDocument } from './schema-document.js';
import { serveEventStream } from './sse-stream.js';
import { attachWebSocketServer } from './websocket-server.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user of a GraphQL request, or undefined (anonymous). */
    graphqlUser: UserPrincipal | undefined;
    /** Why a sent access token was refused, for the anonymous caller's error messages. */
    graphqlTokenProblem: string | undefined;
    /** Stored JSON texts the HTTP response carries unparsed (raw-json.ts); spliced in by the onSend hook. */
    graphqlRawJson: RawJsonSplicer | undefined;
    /** What the executed operation asks of the HTTP answer: `Retry-After` for a throttled or busy one. */
    graphqlAnswer: GraphqlAnswer | undefined;
    /** The request's heavy work, abandoned when its response closes or its execution has settled. */
    graphqlWork: AbandonableWork | undefined;
  }
}

/**
 * The GraphQL interface (SPEC section 4) at GRAPHQL_PATH: GraphQL over HTTP (graphql-http, POST and GET),
 * over SSE (graphql-sse, when the client accepts text/event-stream) and over WebSocket (graphql-ws). The caller's
 * token picks one of the role schemas; resolvers call the same domain functions as REST. A browser asking for
 * HTML gets the explorer (graphql-explorer.ts); each role schema is also published as SDL (schema-document.ts).
 */
export function registerGraphql(app: FastifyInstance, deps: GraphqlDeps): { liveSubscriptions(): number; close(): Promise<void> } {
  const schemas = buildRoleSchemas(allResolvers());
  const preparer = new OperationPreparer(schemas, deps.config.graphqlCostLimit);
  const compiled = new CompiledExecution();
  const logError = (error: unknown) => app.log.error({ err: error }, 'GraphQL resolver failed');
  const formatError = (error: unknown) => formatGraphqlError(error as never, logError) as never;

  const onSubscribe = (
    request: FastifyRequest,
    params: { query: string; variables?: Record<string, unknown> | null; operationName?: string | null },
    rawJson?: RawJsonSplicer,
    work: GraphqlContext['work'] = {},
    answer?: GraphqlAnswer,
  ) => {
    const principal = request.graphqlUser;
    const audience = audienceOf(principal, deps.config.platformOperatorOrganizations);
    const prepared = preparer.prepare(params.query, audience, request.graphqlTokenProblem, params);
    if (Array.isArray(prepared)) {
      countOperation(deps.metrics, 'refused');
      return prepared;
    }
    const { schema, document } = prepared as Exclude<typeof prepared, readonly unknown[]>;
    const contextValue: GraphqlContext = { principal, address: request.ip, deps, rawJson, work, answer };
    return {
      schema,
      document,
      variableValues: params.variables ?? undefined,
      operationName: params.operationName ?? undefined,
      contextValue,
    };
  };

  const httpHandler = createHttpHandler({
    onSubscribe: async (request, params) => {
      // The whole response is serialized at once and passes the route's onSend hook, which splices raw JSON in.
      const rawJson = (request.raw.graphqlRawJson = new RawJsonSplicer());
      const prepared = onSubscribe(request.raw, params, rawJson, request.raw.graphqlWork, (request.raw.graphqlAnswer = {}));
      // A mutation outside the caller's role fails validation as an unknown field: recorded as denied (SPEC 14).
      if (Array.isArray(prepared) && request.raw.graphqlUser)
        await recordDeniedMutations(deps, request.raw.graphqlUser, params.query, params.operationName, params.variables);
      // graphql-http refuses a mutation over GET itself, but with an error that has no code and a text/plain type.
      if (
        request.method === 'GET' &&
        !Array.isArray(prepared) &&
        isMutation((prepared as { document: DocumentNode }).document, params.operationName)
      ) {
        return mutationOverGet() as never;
      }
      return prepared as never;
    },
    parseRequestParams: readRequestParams as never,
    execute: async (args) => {
      let result;
      try {
        result = await compiled.execute(args);
      } finally {
        // Settled: the answer is complete, or a failure has already decided it (a non-null root field failed), and
        // siblings still reading are read for nobody. They stop at their next store read.
        (args.contextValue as GraphqlContext).work.abandon?.();
      }
      const failed = 'errors' in result && (result.errors?.length ?? 0) > 0;
      const answer = (args.contextValue as GraphqlContext).answer;
      if (failed && answer) answer.retryAfterS = retryAfterOf(result.errors!);
      countOperation(deps.metrics, failed ? 'error' : 'ok', args.document, args.operationName);
      return result;
    },
    formatError,
  });
  const { config } = deps;
  const live = new LiveStreams({
    events: deps.events,
    sessions: deps.sessions,
    limits: {
      perConnection: config.graphqlSubscriptionsPerConnection,
      perUser: config.graphqlSubscriptionsPerUser,
      queue: config.graphqlSubscriptionQueue,
      recheckMs: config.graphqlSessionRecheckS * 1000,
    },
    onError: (error) => app.log.warn({ err: error }, 'live stream session check failed'),
  });
  // Over SSE an operation counts as ok once it starts (a refused one in onSubscribe); its events are not counted.
  const prepareStream: typeof onSubscribe = (request, params) => {
    const prepared = onSubscribe(request, params);
    if (!Array.isArray(prepared))
      countOperation(deps.metrics, 'ok', (prepared as { document: DocumentNode }).document, params.operationName);
    return prepared;
  };
  const sse = { prepare: prepareStream, formatError, live, sendBufferBytes: config.graphqlSendBufferBytes };

  app.decorateRequest('graphqlUser', undefined);
  app.decorateRequest('graphqlTokenProblem', undefined);
  app.decorateRequest('graphqlRawJson', undefined);
  app.decorateRequest('graphqlAnswer', undefined);
  app.decorateRequest('graphqlWork', undefined);
  app.route({
    method: ['GET', 'POST'],
    url: deps.config.graphqlPath,
    schema: { hide: true },
    onRequest: async (request, reply) => {
      try {
        await authenticate(request, deps);
      } catch (thrown) {
        // The session check reads the store: an unreachable store is SERVICE_UNAVAILABLE here too (toAppError).
        const error = toAppError(thrown);
        if (error.code === 'INTERNAL') throw thrown;
        // Rate limits are answered before any GraphQL work, as a GraphQL error with the HTTP status.
        if (error.meta.retryAfterS !== undefined) reply.header('retry-after', String(error.meta.retryAfterS));
        return reply
          .code(httpStatusOf[error.code])
          .type('application/json; charset=utf-8')
          .send({ errors: [appErrorAsGraphql(error)] });
      }
    },
    // Body errors (not JSON, malformed, over 1 MiB) happen before graphql-http runs: answer them as GraphQL errors
    // too, since GraphQL clients read `errors`, not the REST problem body.
    errorHandler: (error, request, reply) => {
      const appError = toAppError(error);
      if (appError.code === 'INTERNAL') request.log.error({ err: error }, 'GraphQL request failed');
      return sendGraphqlProblem(reply, appError);
    },
    preHandler: auditScopeHook('graphql', (request) => request.graphqlUser),
    onSend: async (request, reply, payload) => {
      const retryAfterS = request.graphqlAnswer?.retryAfterS;
      if (retryAfterS !== undefined) reply.header('retry-after', String(retryAfterS));
      const rawJson = request.graphqlRawJson;
      return rawJson && !rawJson.isEmpty && typeof payload === 'string' ? rawJson.splice(payload) : payload;
    },
    handler: async (request, reply) => {
      if (wantsExplorer(request)) return sendExplorerPage(reply, config.graphqlPath);
      const accept = request.headers.accept ?? '';
      if (!accept.includes('text/event-stream')) {
        request.graphqlWork = workOfResponse(reply.raw);
        return httpHandler.call(app, request, reply);
      }
      // Event streams never end by themselves: remember them, so a shutdown can end them and not wait forever.
      streams.add(reply.raw);
      reply.raw.once('close', () => streams.delete(reply.raw));
      return serveEventStream(request, reply, sse);
    },
  });

  registerExplorerAssets(app, config.graphqlPath);
  registerSchemaDocument(app, {
    graphqlPath: config.graphqlPath,
    schemas,
    onRequest: (request) => authenticate(request, deps),
    operatorOrganizations: config.platformOperatorOrganizations,
  });

  const streams = new Set<import('node:http').ServerResponse>();
  const webSockets = attachWebSocketServer(app, { ...deps, schemas, preparer, formatError, live });
  return {
    liveSubscriptions: () => live.subscriptionCount,
    async close() {
      live.stop();
      for (const stream of streams) stream.end();
      await webSockets.close();
    },
  };
}

/**
 * The wait an operation's refusals ask for (RATE_LIMITED, or SERVICE_UNAVAILABLE such as no argon2 turn), the longest
 * of them, as the HTTP answer's `Retry-After` beside `extensions.retryAfter`; undefined when none asks.
 */
function retryAfterOf(errors: readonly GraphQLError[]): number | undefined {
  let longest: number | undefined;
  for (const error of errors) {
    const original = error.originalError;
    if (!(original instanceof AppError) || (original.code !== 'RATE_LIMITED' && original.code !== 'SERVICE_UNAVAILABLE')) continue;
    const seconds = original.meta.retryAfterS;
    if (typeof seconds === 'number') longest = Math.max(longest ?? 0, seconds);
  }
  return longest;
}

/** An AppError raised outside GraphQL execution, as a GraphQL response with the error's HTTP status. */
function sendGraphqlProblem(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.meta.retryAfterS !== undefined) reply.header('retry-after', String(error.meta.retryAfterS));
  return reply
    .code(httpStatusOf[error.code])
    .type('application/json; charset=utf-8')
    .send({ errors: [appErrorAsGraphql(error)] });
}

function isMutation(document: DocumentNode, operationName: string | null | undefined): boolean {
  return getOperationAST(document, operationName ?? undefined)?.operation === 'mutation';
}

/**
 * graphql-http's own parameter reading, except that a body it cannot read (a charset other than UTF-8) gets a
 * coded GraphQL error with its 415 instead of an empty body.
 */
async function readRequestParams(request: GraphqlHttpRequest<unknown, unknown>) {
  const params = await parseRequestParams(request);
  if (!Array.isArray(params) || params[0] !== null) return params;
  const [, init] = params;
  const body = {
    errors: [
      { message: 'The request body must be JSON in UTF-8 (Content-Type: application/json).', extensions: { code: 'BAD_USER_INPUT' } },
    ],
  };
  return [JSON.stringify(body), { ...init, headers: { ...init.headers, 'content-type': 'application/json; charset=utf-8' } }];
}

/** GraphQL over HTTP: 405 with `Allow: POST` for a mutation sent with GET, as a coded GraphQL error. */
function mutationOverGet() {
  const body = { errors: [{ message: 'Mutations must be sent with POST.', extensions: { code: 'BAD_USER_INPUT' } }] };
  return [
    JSON.stringify(body),
    { status: 405, statusText: 'Method Not Allowed', headers: { allow: 'POST', 'content-type': 'application/json; charset=utf-8' } },
  ];
}

/**
 * Rate limits per address, then the caller from `Authorization: Bearer` (rate limited per user); a bad token
 * leaves the caller anonymous and counts only against its address.
 */
async function authenticate(request: FastifyRequest, deps: GraphqlDeps): Promise<void> {
  deps.limits.perAddress.hit(request.ip);
  const token = bearerToken(request);
  if (token === undefined) return;
  try {
    request.graphqlUser = await deps.sessions.verifyAccess(token);
    deps.limits.perCaller.hit(`user:${request.graphqlUser.userId}`);
  } catch (error) {
    // refreshToken and login must work with an expired access token still in the header; everything else
    // then fails with UNAUTHENTICATED naming why the token was refused.
    if (!(error instanceof AppError) || error.code !== 'UNAUTHENTICATED') throw error;
    request.graphqlTokenProblem = error.message;
  }
}
