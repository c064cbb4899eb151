import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  execute,
  getOperationAST,
  subscribe,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLError,
} from 'graphql';
import { invalidField } from '../../domain/errors.js';
import { toAppError } from '../problem.js';
import type { GraphqlContext } from './graphql-deps.js';
import { appErrorAsGraphql } from './graphql-errors.js';
import type { LiveStreams, StreamEnd } from './live-streams.js';

export interface SseParams {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

type Prepared =
  | readonly GraphQLError[]
  | {
      schema: ExecutionArgs['schema'];
      document: DocumentNode;
      variableValues?: Record<string, unknown>;
      operationName?: string;
      contextValue: GraphqlContext;
    };

export interface SseDeps {
  prepare(request: FastifyRequest, params: SseParams): Prepared;
  formatError(error: unknown): unknown;
  live: LiveStreams;
  sendBufferBytes: number;
}

// Comments keep proxies and browsers from closing an idle stream (graphql-sse's client expects them too).
const keepAliveMs = 12_000;

/**
 * GraphQL over Server-Sent Events, the "distinct connections" mode of the graphql-sse protocol (one operation per
 * request; `next` events, then `complete`), which graphql-sse's client speaks. Written here rather than taken from
 * graphql-sse's server because that one queues results in memory for a client that does not read, without bound:
 * this one waits for the socket to drain before it takes the next result, so a slow reader's events wait in the
 * subscription's bounded queue, and overflowing it ends the stream. A stream belongs to the caller's session and
 * ends (an UNAUTHENTICATED or FORBIDDEN error, then `complete`) when the session does.
 */
export async function serveEventStream(request: FastifyRequest, reply: FastifyReply, deps: SseDeps): Promise<void> {
  const prepared = deps.prepare(request, readParams(request));
  const response = openStream(reply);
  if (Array.isArray(prepared)) return finish(response, { errors: prepared.map((error) => deps.formatError(error)) });

  const args = prepared as Exclude<Prepared, readonly GraphQLError[]>;
  const principal = args.contextValue.principal;
  const isSubscription = getOperationAST(args.document, args.operationName)?.operation === 'subscription';
  if (!isSubscription || !principal) return finish(response, formatResult(await execute(args), deps));

  // Set once the subscription's iterator exists; ending the stream before that has nothing to stop.
  const iteration: { stop?: () => void } = {};
  const live = deps.live.open(principal, (why) => {
    if (why.slow) response.destroy();
    else finish(response, { errors: [endError(why)] });
    iteration.stop?.();
  });
  response.once('close', () => {
    deps.live.close(live);
    iteration.stop?.();
  });
  try {
    await deps.live.reserve(live);
  } catch (error) {
    // The stream is open already: every refusal (a cap, an ended session, a store that cannot say) goes in it.
    const refused = toAppError(error);
    if (refused.code === 'INTERNAL') request.log.error({ err: error }, 'GraphQL subscribe check failed');
    return finish(response, { errors: [appErrorAsGraphql(refused)] });
  }
  const outcome = await subscribe({ ...args, contextValue: { ...args.contextValue, live } });
  if (!(Symbol.asyncIterator in outcome)) return finish(response, formatResult(outcome, deps));
  const iterator = outcome[Symbol.asyncIterator]();
  iteration.stop = () => void iterator.return?.();

  const ping = setInterval(() => isOpen(response) && response.write(':\n\n'), keepAliveMs);
  try {
    for (let step = await iterator.next(); !step.done && isOpen(response); step = await iterator.next()) {
      if (!response.write(event('next', formatResult(step.value, deps)))) {
        if (response.writableLength > deps.sendBufferBytes) live.overflowed();
        else await drainedOrClosed(response);
      }
    }
  } finally {
    clearInterval(ping);
  }
  finish(response);
}

function readParams(request: FastifyRequest): SseParams {
  const source = (request.method === 'GET' ? request.query : request.body) as Record<string, unknown> | undefined;
  const query = source?.query;
  if (typeof query !== 'string' || query.length === 0) throw invalidField('query', 'query is required: the GraphQL document as a string.');
  let variables = source?.variables;
  if (typeof variables === 'string') {
    try {
      variables = JSON.parse(variables) as unknown;
    } catch {
      throw invalidField('variables', 'variables must be a JSON object.');
    }
  }
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables)))
    throw invalidField('variables', 'variables must be a JSON object.');
  const operationName = source?.operationName;
  if (operationName != null && typeof operationName !== 'string') throw invalidField('operationName', 'operationName must be a string.');
  return { query, variables: variables as Record<string, unknown> | null | undefined, operationName };
}

function openStream(reply: FastifyReply): ServerResponse {
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  response.write(':\n\n');
  return response;
}

function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

function isOpen(response: ServerResponse): boolean {
  return !response.destroyed && !response.writableEnded;
}

function finish(response: ServerResponse, last?: unknown): void {
  if (!isOpen(response)) return;
  if (last !== undefined) response.write(event('next', last));
  response.end(event('complete'));
}

function event(name: 'next' | 'complete', data?: unknown): string {
  return data === undefined ? `event: ${name}\ndata:\n\n` : `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

function formatResult(result: ExecutionResult, deps: SseDeps): unknown {
  return result.errors ? { ...result, errors: result.errors.map((error) => deps.formatError(error)) } : result;
}

function endError(why: StreamEnd): unknown {
  return { message: why.message, extensions: { code: why.code === 4403 ? 'FORBIDDEN' : 'UNAUTHENTICATED' } };
}
