import type { FastifyInstance } from 'fastify';
import type { GraphQLError, GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { AppError } from '../../domain/errors.js';
import type { UserPrincipal } from '../../domain/identity/principal.js';
import type { Audience } from './access.js';
import type { GraphqlContext, GraphqlDeps } from './graphql-deps.js';
import type { OperationPreparer } from './operation-preparer.js';

/**
 * GraphQL over WebSocket (`graphql-transport-ws`) on GRAPHQL_PATH, for subscriptions (queries and mutations work
 * too). The access token comes in `connectionParams` (`Authorization: Bearer …`, or `token`) or the upgrade
 * request's Authorization header; without a valid one the connection is refused (close code 4403).
 */
export function attachWebSocketServer(
  app: FastifyInstance,
  deps: GraphqlDeps & { schemas: Record<Audience, GraphQLSchema>; preparer: OperationPreparer; formatError: (error: unknown) => unknown },
): { close(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const users = new WeakMap<object, UserPrincipal>();
  const server = useServer<Record<string, unknown> | undefined, { request: { headers: Record<string, string | string[] | undefined> } }>(
    {
      onConnect: async (ctx) => {
        const token = tokenFrom(ctx.connectionParams) ?? bearerFrom(ctx.extra.request.headers.authorization);
        if (!token) return false;
        try {
          users.set(ctx, await deps.sessions.verifyAccess(token));
          return true;
        } catch (error) {
          if (error instanceof AppError) return false;
          throw error;
        }
      },
      onSubscribe: (ctx, _id, payload) => {
        const principal = users.get(ctx);
        const prepared = deps.preparer.prepare(payload.query, principal?.role ?? 'anonymous');
        if (Array.isArray(prepared)) return prepared as readonly GraphQLError[];
        const { schema, document } = prepared as Exclude<typeof prepared, readonly unknown[]>;
        const contextValue: GraphqlContext = { principal, deps };
        return { schema, document, variableValues: payload.variables ?? undefined, operationName: payload.operationName ?? undefined, contextValue };
      },
      onError: (_ctx, _id, _payload, errors) => errors.map((error) => deps.formatError(error)) as never,
      onNext: (_ctx, _id, _payload, _args, result) => {
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
