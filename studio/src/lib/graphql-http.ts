import { config } from './config';
import { StudioError, type FieldProblem } from './errors';

interface GraphqlResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; errors?: FieldProblem[]; allowed?: string[] } }[];
}

/**
 * One GraphQL request over HTTP, outside the client's exchanges: sign-in, refresh and sign-out, which must not wait
 * for (or trigger) a token refresh themselves. The first error becomes a StudioError with its code and fields.
 */
export async function postGraphql<T>(query: string, variables: Record<string, unknown>, accessToken?: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(config.graphqlPath, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...(accessToken && { authorization: `Bearer ${accessToken}` }),
      },
      body: JSON.stringify({ query, variables }),
    });
  } catch {
    throw new StudioError('The platform cannot be reached. Check the connection and try again.', 'NETWORK');
  }
  const body = (await response.json().catch(() => ({}))) as GraphqlResponse<T>;
  const first = body.errors?.[0];
  if (first) {
    throw new StudioError(
      first.message,
      first.extensions?.code ?? 'INTERNAL_SERVER_ERROR',
      first.extensions?.errors ?? [],
      first.extensions?.allowed ?? [],
    );
  }
  if (!body.data) throw new StudioError(`The platform answered ${response.status} without data.`, 'INTERNAL_SERVER_ERROR');
  return body.data;
}
