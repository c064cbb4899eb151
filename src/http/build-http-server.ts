import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { AppError, notFound } from '../domain/errors.js';
import { answerClientError } from './client-error.js';
import { registerJsonBodyParser } from './json-body.js';
import { sendProblem, toAppError } from './problem.js';
import { validateEveryPart, validatorCompiler } from './validator-compiler.js';

export const bodyLimitBytes = 1024 * 1024;

/** Polled every few seconds by orchestrators and Prometheus: logged at debug, so info shows the traffic. */
const probeRoutes = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Who made a request, for its log line: a REST client (`client:ID`) or a GraphQL user (`user:ID`), as the
 * interfaces authenticated it; undefined when anonymous. Ids only, never a token or an e-mail.
 */
function principalOf(request: FastifyRequest): string | undefined {
  const client = (request as { client?: { clientId: string } | null }).client;
  if (client) return `client:${client.clientId}`;
  const user = (request as { graphqlUser?: { userId: string } }).graphqlUser;
  return user ? `user:${user.userId}` : undefined;
}

// A caller's X-Request-Id is kept when it is a sane token, so a request can be followed across services.
const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The bare HTTP server: logging with request ids, body limit, JSON-only bodies, trailing slashes, the error
 * shape of SPEC section 3 for every error (unknown routes included) and request metrics. Routes are plugins
 * registered by the caller; this function does not listen.
 */
export function buildHttpServer(deps: { logger: Logger; metrics: Metrics; trustProxy?: readonly string[] }): FastifyInstance {
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: bodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && requestIdPattern.test(incoming) ? incoming : randomUUID();
    },
    // Our onResponse hook logs each request once, with route, timing and caller; fastify's own lines would double it.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: 'idle',
    // request.ip (the per-address limit, logs) is the client the listed proxies forwarded for; without any, the peer.
    trustProxy: deps.trustProxy && deps.trustProxy.length > 0 ? [...deps.trustProxy] : false,
    return503OnClosing: true,
    // A URL the router cannot decode (bad percent-encoding, a path parameter over maxParamLength) is answered by
    // fastify before any hook or error handler runs; route it through the one error shape too.
    frameworkErrors: (error, _request, reply) => sendProblem(reply, toAppError(error)),
    // What Node's HTTP parser refuses (malformed request line, headers too large) gets the one error shape too.
    clientErrorHandler(error, socket) {
      answerClientError(error, socket, (this as FastifyInstance).log);
    },
  });

  // JSON only: without the text/plain parser, any other content type is a 415. JSON itself strictly (json-body.ts).
  app.removeContentTypeParser('text/plain');
  registerJsonBodyParser(app);
  app.setValidatorCompiler(validatorCompiler);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    deps.metrics.httpRequests.inc({ method: request.method, route, status: reply.statusCode });
    deps.metrics.httpDuration.observe({ route }, reply.elapsedTime / 1000);
    // The route pattern, never the URL: a query string may carry a GraphQL document with a password in it.
    // `reqId` is bound by fastify to every line of the request.
    const line = {
      method: request.method,
      route,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      principal: principalOf(request),
    };
    if (reply.statusCode >= 500) request.log.warn(line, 'request failed');
    else if (probeRoutes.has(route)) request.log.debug(line, 'request');
    else request.log.info(line, 'request');
  });

  app.setErrorHandler((error, request, reply) => {
    // fastify stops at the first part of the request that fails its schema; the answer names the bad fields of all.
    const appError = ((error as { validation?: unknown }).validation ? validateEveryPart(request) : undefined) ?? toAppError(error);
    if (appError.code === 'INTERNAL') request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, appError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    // A route that answers this method and still found nothing (a file it does not serve) is a 404, and so is an
    // OPTIONS nobody answers: preflights are CORS's to answer or not (cors.ts).
    const allow = request.method === 'OPTIONS' ? [] : allowedMethods(app, path);
    if (allow.length === 0 || allow.includes(request.method)) return sendProblem(reply, notFound(`No route ${request.method} ${path}.`));
    return sendProblem(
      reply,
      new AppError('METHOD_NOT_ALLOWED', `${path} does not answer ${request.method}; it answers ${allow.join(', ')}.`, [], { allow }),
    );
  });

  return app;
}

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * The methods the router answers on a concrete path (RFC 9110 `Allow`), from the routes themselves. A path that
 * only answers OPTIONS (a catch-all preflight route) counts as unknown, so it stays 404.
 */
export function allowedMethods(app: FastifyInstance, path: string): string[] {
  const allow = methods.filter((method) => app.findRoute({ method, url: path }) !== null);
  return allow.some((method) => method !== 'OPTIONS' && method !== 'HEAD') ? allow : [];
}
