/** How a REST fuzz request is built (authentication, headers, body and content type), and requests no route expects. */
import fc from 'fast-check';
import { contentType, headerText, pathSegment } from './http-request-parts.js';
import { deepJsonText, duplicateKeysText, nonJsonText } from './json-bodies.js';
import { anyJsonValue, nastyString } from './nasty-values.js';

/** How a request authenticates; resolved to a header value at request time (tokens expire, so they are fetched late). */
export type AuthChoice =
  | { kind: 'valid' }
  | { kind: 'none' }
  | { kind: 'lowercase-scheme' }
  | { kind: 'graphql-token' }
  | { kind: 'tampered' }
  | { kind: 'header'; value: string };

export interface FuzzRequest {
  method: string;
  /** Relative to REST_BASE_PATH, query string included. */
  path: string;
  auth: AuthChoice;
  contentType: string | undefined;
  /** Sent as is. */
  body: string | undefined;
  headers: Record<string, string>;
}

export const authChoice: fc.Arbitrary<AuthChoice> = fc.oneof(
  { weight: 14, arbitrary: fc.constant({ kind: 'valid' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'lowercase-scheme' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'graphql-token' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'tampered' as const }) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          'Bearer',
          'Bearer ',
          'Bearer  ',
          'Basic YWNtZTpzZWNyZXQ=',
          'Bearer x.y.z',
          'Bearer eyJhbGciOiJub25lIn0.eyJvcmciOiJhY21lIn0.',
          'Bearer a b',
          'Token abc',
          'Bearer null',
        ),
        headerText.map((text) => `Bearer ${text}`),
        headerText,
      )
      .map((value) => ({ kind: 'header' as const, value })),
  },
);

/** A body as text, with a content type: mostly JSON built from `valid` with mutations, else anything. */
export function bodyFor(
  valid: fc.Arbitrary<Record<string, unknown>> | fc.Arbitrary<unknown>,
  base: Record<string, unknown>,
  texts: fc.Arbitrary<string> = nonJsonText,
): fc.Arbitrary<{ body: string | undefined; contentType: string | undefined }> {
  const json = fc.oneof(
    { weight: 10, arbitrary: valid.map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 1, arbitrary: texts },
    { weight: 2, arbitrary: duplicateKeysText(base) },
    { weight: 2, arbitrary: nonJsonText },
    { weight: 1, arbitrary: deepJsonText },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(1024 * 1024 - 20, 1024 * 1024 + 10, 3 * 1024 * 1024)
        .map((size) => JSON.stringify({ ...base, pad: 'x'.repeat(size) })),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  return fc.record({ body: json, contentType });
}

/** A generator of requests to one route: its method and path, any authentication, a few extra headers, a body or none. */
export function request(
  method: string,
  path: fc.Arbitrary<string>,
  body?: fc.Arbitrary<{ body: string | undefined; contentType: string | undefined }>,
): fc.Arbitrary<FuzzRequest> {
  const extraHeaders = fc.dictionary(
    fc.constantFrom('x-request-id', 'accept', 'accept-charset', 'x-forwarded-for', 'content-encoding', 'transfer-encoding-x', 'x-junk'),
    headerText,
    { maxKeys: 2 },
  );
  // GETs sometimes carry a body too (fetch cannot send one with GET, so these go as bodiless GETs with a content type).
  const sent =
    body ??
    fc.record({
      body: fc.constant(undefined),
      contentType: fc.option(
        contentType.map((type) => type ?? 'application/json'),
        { nil: undefined },
      ),
    });
  return fc
    .record({ method: fc.constant(method), path, auth: authChoice, sent, headers: extraHeaders })
    .map(({ sent: { body, contentType }, headers, ...rest }) => ({
      ...rest,
      body,
      contentType,
      headers,
    }));
}

/** Requests no route expects: other methods, unknown paths, random segments under the base path. */
export const strayRequest: fc.Arbitrary<FuzzRequest> = request(
  'GET',
  fc.oneof(
    fc.array(pathSegment(nastyString), { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`),
    fc.constantFrom(
      '/',
      '',
      '//',
      '/things//',
      '/things/FZ-1//messages',
      '/groups/',
      '/things/FZ-1/messages/',
      '/catalog/',
      '/auth/client-token/',
    ),
  ),
  bodyFor(anyJsonValue, { a: 1 }),
).chain((base) =>
  fc
    .constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS')
    .map((method) => ({ ...base, method, body: method === 'GET' ? undefined : base.body })),
);
