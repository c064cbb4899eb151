/** HTTP requests to the GraphQL endpoint: generated operations as each audience, over GET, junk parameters, and bad bodies. */
import fc from 'fast-check';
import { generatedOperation, junkQuery, type GeneratedOperation } from './graphql-operations.js';
import { contentType } from './http-request-parts.js';
import { deepJsonText, nonJsonText } from './json-bodies.js';
import { anyJsonValue } from './nasty-values.js';

export type Audience = 'anonymous' | 'garbage-token' | 'rest-token' | 'Viewer' | 'Installer' | 'Manager';

/** One HTTP request to the GraphQL endpoint, described before tokens are filled in. */
export interface GraphqlFuzzRequest {
  audience: Audience;
  method: 'GET' | 'POST';
  contentType: string | undefined;
  accept: string | undefined;
  /** POST body as sent; for GET, the query string. */
  body: string;
  /** The operation when the request carries one generated operation as is; undefined for junk. */
  operation: GeneratedOperation | undefined;
}

const anyAudience = fc.constantFrom<Audience>(
  'anonymous',
  'garbage-token',
  'rest-token',
  'Viewer',
  'Installer',
  'Manager',
  'Manager',
  'Viewer',
);
const accept = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('application/graphql-response+json', 'application/json', undefined, '*/*') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/xml',
      'text/html',
      'application/json;q=0, */*;q=0',
      'application/graphql-response+json; charset=latin1',
    ),
  },
);

/** Generated operations POSTed as JSON by one of `audiences`: the common case. */
export function operationRequests(...audiences: Audience[]): fc.Arbitrary<GraphqlFuzzRequest> {
  return fc
    .record({ audience: fc.constantFrom(...audiences), accept, operation: generatedOperation })
    .map(({ audience, accept, operation }) => ({
      audience,
      method: 'POST' as const,
      contentType: 'application/json',
      accept,
      body: JSON.stringify({ query: operation.query, variables: operation.variables, operationName: operation.operationName }),
      operation,
    }));
}

/** Generated operations over GET (mutations must be refused with 405). */
export const getRequests: fc.Arbitrary<GraphqlFuzzRequest> = fc
  .record({ audience: anyAudience, accept, operation: generatedOperation })
  .map(({ audience, accept, operation }) => {
    const params = new URLSearchParams({ query: operation.query });
    if (operation.variables !== undefined) params.set('variables', JSON.stringify(operation.variables));
    if (typeof operation.operationName === 'string') params.set('operationName', operation.operationName);
    return { audience, method: 'GET' as const, contentType: undefined, accept, body: params.toString(), operation: undefined };
  });

/** Junk documents, parameters of the wrong types, batches. */
export const junkRequests: fc.Arbitrary<GraphqlFuzzRequest> = fc
  .record({
    audience: anyAudience,
    accept,
    query: fc.oneof({ weight: 4, arbitrary: junkQuery }, { weight: 1, arbitrary: anyJsonValue }),
    variables: fc.oneof(fc.constant(undefined), anyJsonValue),
    operationName: fc.oneof(fc.constant(undefined), anyJsonValue),
    extensions: fc.oneof(fc.constant(undefined), anyJsonValue),
    batched: fc.boolean(),
  })
  .map(({ audience, accept, query, variables, operationName, extensions, batched }) => {
    const params = { query, variables, operationName, extensions };
    return {
      audience,
      method: 'POST' as const,
      contentType: 'application/json',
      accept,
      body: JSON.stringify(batched ? [params, params] : params),
      operation: undefined,
    };
  });

/** Bodies that are not JSON, deep JSON, huge bodies, duplicate keys, wrong content types. */
export const bodyRequests: fc.Arbitrary<GraphqlFuzzRequest> = fc
  .record({
    audience: anyAudience,
    accept,
    contentType,
    sent: fc.oneof(
      fc
        .oneof(
          nonJsonText,
          deepJsonText,
          fc
            .constantFrom(1024 * 1024 + 10, 2 * 1024 * 1024)
            .map((size) => JSON.stringify({ query: '{ me { id } }', pad: 'x'.repeat(size) })),
          // Duplicate keys: the last one wins, so this is the harmless query and must not create the group.
          fc.constant('{"query":"mutation { createGroup(groupId: \\"gq-dup\\") { groupId } }","query":"{ me { id } }"}'),
          fc.constant('{"query":"{ me { id } }","__proto__":{"x":1}}'),
        )
        .map((body) => ({ body, operation: undefined })),
      // Deep JSON in a 13200 command's free fields, sent as variables text.
      deepJsonText.map((deep) => ({
        body: `{"query":"mutation Fuzz($c: [JSON!]!) { sendCommands(tuid: \\"GQ-1\\", commands: $c) { tuid } }","variables":{"c":[{"tsmId":13200,"tsmEv":30,"transactionId":5,"free":${deep}}]}}`,
        operation: { kind: 'mutation' as const, query: '', variables: undefined, operationName: undefined, rootKeys: ['sendCommands'] },
      })),
      // A real operation under a random content type: it may run (and write) only where the type is JSON.
      generatedOperation.map((operation) => ({
        body: JSON.stringify({ query: operation.query }),
        operation: { ...operation, variables: undefined },
      })),
    ),
  })
  .map(({ audience, accept, contentType, sent }) => ({
    audience,
    method: 'POST' as const,
    contentType,
    accept,
    body: sent.body,
    operation: sent.operation,
  }));
