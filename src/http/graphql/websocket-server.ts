import type { FastifyInstance } from 'fastify';
import { GraphQLError, getOperationAST, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError } from '../../domain/errors.js';
import { audienceOf, type Audience } from './access.js';
import type { GraphqlContext, GraphqlDeps } from './graphql-deps.js';
import { abandonedReason } from '../abandoned-requests.js';
import { toAppError } from '../problem.js';
import { appErrorAsGraphql } from './graphql-errors.js';
import type { LiveConnection, LiveStreams } from './live-streams.js';
import { countOperation } from './operation-metrics.js';
import type { OperationPreparer } from './operation-preparer.js';

interface SocketState {
  live: LiveConnection;
  /** Ids of this socket's running subscriptions, each holding a slot of the caps. */
  subscriptions: Set<string>;
  /** The heavy work of each running operation, abandoned when it completes or the socket closes. */
  work: Map<string, AbortController>;
}

/**
 * GraphQL over WebSocket (`graphql-transport-ws`) on GRAPHQL_PATH, for subscriptions (queries and mutations work
 * too). The access token comes in `connectionParams` (`Authorization: Bearer …`, or `token`) or the upgrade
 * request's Authorization header; without a valid one the connection is refused (close code 4403).
 *
 * The connection belongs to the sign-in session: each subscribe is checked against the session as it is now, and
 * when the session ends (logout, refresh token reuse, user deleted: 4401; role changed: 4403) the socket closes.
 * Subscriptions are capped per connection and per user, and a reader that does not keep up (its unsent data over
 * GRAPHQL_SEND_BUFFER_BYTES, or a subscription's queue full) is dropped rather than buffered for (live-streams.ts).
 */
export function attachWebSocketServer(
  app: FastifyInstance,
  deps: GraphqlDeps & {
    schemas: Record<Audience, GraphQLSchema>;
    preparer: OperationPreparer;
    formatError: (error: unknown) => unknown;
    live: LiveStreams;
  },
): { close(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const sockets = new WeakMap<object, SocketState>();
  const sendBufferBytes = deps.config.graphqlSendBufferBytes;
  const server = useServer<
    Record<string, unknown> | undefined,
    { socket: WebSocket; request: { headers: Record<string, string | string[] | undefined>; socket?: { remoteAddress?: string } } }
  >(
    {
      onConnect: async (ctx) => {
        const token = tokenFrom(ctx.connectionParams) ?? bearerFrom(ctx.extra.request.headers.authorization);
        if (!token) return false;
        try {
          const principal = await deps.sessions.verifyAccess(token);
          const socket = ctx.extra.socket;
          const live = deps.live.open(principal, (why) => (why.slow ? socket.terminate() : socket.close(why.code, why.message)));
          sockets.set(ctx, { live, subscriptions: new Set(), work: new Map() });
          return true;
        } catch (error) {
          if (error instanceof AppError) return false;
          throw error;
        }
      },
      onSubscribe: async (ctx, id, payload) => {
        const state = sockets.get(ctx);
        const principal = state?.live.principal;
        const prepared = deps.preparer.prepare(
          payload.query,
          audienceOf(principal, deps.config.platformOperatorOrganizations),
          undefined,
          payload,
        );
        if (Array.isArray(prepared)) {
          countOperation(deps.metrics, 'refused');
          return prepared as readonly GraphQLError[];
        }
        const { schema, document } = prepared as Exclude<typeof prepared, readonly unknown[]>;
        // Counted as ok once it starts; what its events carry is not counted.
        countOperation(deps.metrics, 'ok', document, payload.operationName);
        const operationName = payload.operationName ?? undefined;
        if (state) {
          try {
            // Every operation is checked against the session as it is now; a subscription also takes a slot.
            if (getOperationAST(document, operationName)?.operation === 'subscription') {
              await deps.live.reserve(state.live);
              state.subscriptions.add(id);
            } else {
              await deps.sessions.assertSessionActive(state.live.principal);
            }
          } catch (error) {
            // A cap, an ended session, or a store that cannot say: an error for this operation, not a closed socket.
            const refused = toAppError(error);
            if (refused.code === 'INTERNAL') app.log.error({ err: error }, 'GraphQL subscribe check failed');
            const { message, extensions } = appErrorAsGraphql(refused);
            return [new GraphQLError(message, { extensions })];
          }
        }
        // The socket's peer (sign-in, the one resolver that reads it, is not in a signed-in schema anyway).
        const address = ctx.extra.request.socket?.remoteAddress ?? '';
        // What the operation still reads once it has completed (a failed non-null field settled it) or its socket
        // closed is read for nobody: abandoned then, as over HTTP (abandoned-requests.ts).
        const controller = new AbortController();
        state?.work.set(id, controller);
        const work = { signal: controller.signal, abandon: () => controller.abort(abandonedReason) };
        const contextValue: GraphqlContext = { principal, address, deps, live: state?.live, work };
        return { schema, document, variableValues: payload.variables ?? undefined, operationName, contextValue };
      },
      onComplete: (ctx, id) => {
        const state = sockets.get(ctx);
        state?.work.get(id)?.abort(abandonedReason);
        state?.work.delete(id);
        if (state?.subscriptions.delete(id)) deps.live.release(state.live);
      },
      onClose: (ctx) => {
        const state = sockets.get(ctx);
        if (!state) return;
        for (const controller of state.work.values()) controller.abort(abandonedReason);
        state.work.clear();
        deps.live.close(state.live);
      },
      onError: (ctx, _id, _payload, errors) => {
        // graphql-ws reports a send that failed as the subscription's error. On a socket that is no longer open
        // it is the client's leaving (or our dropping a slow reader), not a resolver that failed: nobody will
        // read this answer, and logging it as a failure would page an operator for every dropped reader.
        if (ctx.extra.socket.readyState !== ctx.extra.socket.OPEN) return errors;
        return errors.map((error) => deps.formatError(error)) as never;
      },
      onNext: (ctx, _id, _payload, _args, result) => {
        const state = sockets.get(ctx);
        if (state && ctx.extra.socket.bufferedAmount > sendBufferBytes) state.live.overflowed();
        if (!result.errors) return result;
        return { ...result, errors: result.errors.map((error) => deps.formatError(error)) } as never;
      },
    },
    wss,
  );

  app.server.on('upgrade', (request, socket, head) => {
    const path = (request.url ?? '').split('?')[0]!.replace(/\/+$/, '');
    if (path !== deps.config.graphqlPath) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (client) => wss.emit('connection', client, request));
  });

  return {
    async close() {
      await server.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function tokenFrom(params: Record<string, unknown> | undefined): string | undefined {
  if (!params) return undefined;
  const header = params.Authorization ?? params.authorization;
  if (typeof header === 'string') return bearerFrom(header);
  return typeof params.token === 'string' ? params.token : undefined;
}

function bearerFrom(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value ? /^Bearer[ ]+(\S+)\s*$/i.exec(value)?.[1] : undefined;
}
