import { Client, fetchExchange, subscriptionExchange, type AnyVariables, type TypedDocumentNode } from '@urql/core';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import { config } from './config';
import { fromCombinedError } from './errors';
import { session } from './session.svelte';

/** Close codes with which the platform ends a live connection whose session ended (live-streams.ts). */
const sessionEndedCodes = new Set([4401, 4403]);

function websocketUrl(): string {
  const url = new URL(config.graphqlPath, location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

let ws: WsClient | undefined;
/**
 * One WebSocket (graphql-transport-ws) for every live view of the tab, opened on the first subscription and
 * closed when the last one ends. It authenticates with a fresh access token on every (re)connection; a close
 * saying the session ended (logout elsewhere, role changed, user deleted) ends the studio's session too.
 */
function liveSocket(): WsClient {
  ws ??= createWsClient({
    url: websocketUrl(),
    lazy: true,
    retryAttempts: 20,
    connectionParams: async () => ({ Authorization: `Bearer ${(await session.accessToken()) ?? ''}` }),
    on: {
      closed: (event) => {
        const code = (event as CloseEvent | undefined)?.code;
        if (code !== undefined && sessionEndedCodes.has(code))
          session.end('Your session has ended. Sign in again to go on where you were.');
      },
    },
    shouldRetry: (event) => !sessionEndedCodes.has((event as CloseEvent | undefined)?.code ?? 0),
  });
  return ws;
}

/** Forget the live socket (sign-out): the next subscription opens a new one with the new session's token. */
export function closeLiveSocket(): void {
  // dispose() waits for a connection in progress, and that wait rejects with the close event when the platform
  // refuses the connection because the session just ended (sign-out revokes the token it carried): nothing to report.
  Promise.resolve(ws?.dispose()).catch(() => undefined);
  ws = undefined;
}

/**
 * The studio's GraphQL client: queries and mutations over HTTP with the session's bearer token (refreshed before it
 * expires), subscriptions over the live socket. Nothing is cached: every view shows what the platform says now.
 */
export const client = new Client({
  url: config.graphqlPath,
  requestPolicy: 'network-only',
  preferGetMethod: false,
  fetch: async (input, init) => {
    const token = await session.accessToken();
    const headers = new Headers(init?.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  },
  exchanges: [
    fetchExchange,
    subscriptionExchange({
      forwardSubscription: (request) => ({
        subscribe: (sink) => ({ unsubscribe: liveSocket().subscribe({ ...request, query: request.query ?? '' }, sink) }),
      }),
    }),
  ],
});

type Document<Data, Variables extends AnyVariables> = string | TypedDocumentNode<Data, Variables>;

/** A query's data, or a StudioError (an UNAUTHENTICATED answer ends the session: the app returns to sign-in). */
export async function query<Data = Record<string, unknown>, Variables extends AnyVariables = AnyVariables>(
  document: Document<Data, Variables>,
  variables: Variables = {} as Variables,
): Promise<Data> {
  const result = await client.query(document, variables).toPromise();
  return unwrap(result);
}

/** A mutation's data, or a StudioError carrying the fields the server named. */
export async function mutate<Data = Record<string, unknown>, Variables extends AnyVariables = AnyVariables>(
  document: Document<Data, Variables>,
  variables: Variables = {} as Variables,
): Promise<Data> {
  const result = await client.mutation(document, variables).toPromise();
  return unwrap(result);
}

/**
 * Live data: calls `next` with each event until the returned function is called. Errors go to `onError` (a view
 * shows them); a session that ended goes back to sign-in through the socket's close code.
 */
export function subscribe<Data = Record<string, unknown>, Variables extends AnyVariables = AnyVariables>(
  document: Document<Data, Variables>,
  variables: Variables,
  next: (data: Data) => void,
  onError?: (error: Error) => void,
): () => void {
  const { unsubscribe } = client.subscription(document, variables).subscribe((result) => {
    if (result.error) onError?.(fromCombinedError(result.error));
    else if (result.data) next(result.data);
  });
  return unsubscribe;
}

function unwrap<Data>(result: { data?: Data; error?: import('@urql/core').CombinedError }): Data {
  if (result.error) {
    const error = fromCombinedError(result.error);
    if (error.code === 'UNAUTHENTICATED') session.end('Your session has ended. Sign in again to go on where you were.');
    throw error;
  }
  if (result.data === undefined) throw new Error('The platform answered without data.');
  return result.data;
}
