import assert from 'node:assert/strict';
import { httpStatusOf } from '../../src/http/problem.js';
import type { StoreSnapshot } from '../helpers/store-snapshot.js';

/** The codes of docs/errors.md (the error catalog; a test checks that the doc and the catalog agree). */
export const errorCodes: ReadonlySet<string> = new Set(Object.keys(httpStatusOf));

/** What an error message must never show: stack frames, file paths, SQL engine errors, JavaScript error names. */
const leakPatterns: readonly RegExp[] = [
  /\n\s+at /,
  /\bat \S+ \(.*:\d+:\d+\)/,
  /node_modules/,
  /\/src\//,
  /\.[cm]?[jt]s:\d+/,
  /SQLITE_/,
  /sqlite/i,
  /no such (table|column)/i,
  /constraint failed/i,
  /\b(TypeError|RangeError|ReferenceError|EvalError|SyntaxError|AggregateError)\b/,
  /Cannot read propert/,
  /is not a function/,
  /is not iterable/,
  /Maximum call stack/,
  /\bkysely\b/i,
  /\/tmp\//,
  /\/work\//,
];

/** Fails when a message shows internals. */
export function assertNoInternals(message: string, context: string): void {
  for (const pattern of leakPatterns)
    assert.doesNotMatch(message, pattern, `internals leaked (${pattern}) in ${JSON.stringify(message.slice(0, 300))}: ${context}`);
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
}

/** Parses a response body as JSON, failing with the text when it is not. */
export function parseJson(result: HttpResult, context: string): unknown {
  try {
    return JSON.parse(result.text);
  } catch {
    assert.fail(`status ${result.status}: body is not JSON: ${JSON.stringify(result.text.slice(0, 300))}: ${context}`);
  }
}

/**
 * The REST invariants of issue 8 for one response: never 5xx; an error is the problem body of SPEC section 3
 * with `statusCode` equal to the status and a catalog code; a success is a JSON object with exactly `data`.
 */
export function assertRestResponse(result: HttpResult, context: string): void {
  assert.ok(result.status < 500, `status ${result.status}: ${result.text.slice(0, 500)}: ${context}`);
  assert.ok(
    [200, 400, 401, 403, 404, 405, 409, 413, 415].includes(result.status),
    `unexpected status ${result.status}: ${result.text.slice(0, 300)}: ${context}`,
  );
  // A message export streams NDJSON or CSV (its errors are JSON like every other).
  if (result.status === 200 && /^(application\/x-ndjson|text\/csv; charset=utf-8)$/.test(result.headers.get('content-type') ?? '')) return;
  assert.match(result.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/, context);
  const body = parseJson(result, context) as Record<string, unknown>;
  assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), `body is not a JSON object: ${context}`);
  if (result.status === 200) {
    assert.deepEqual(Object.keys(body), ['data'], context);
    return;
  }
  assert.ok(Number.isInteger(body.statusCode), `statusCode: ${result.text.slice(0, 300)}: ${context}`);
  assert.equal(body.statusCode, result.status, context);
  assert.equal(typeof body.error, 'string', context);
  assert.equal(typeof body.message, 'string', context);
  assert.ok(typeof body.code === 'string' && errorCodes.has(body.code), `code ${String(body.code)}: ${context}`);
  assert.equal(
    httpStatusOf[body.code as keyof typeof httpStatusOf],
    result.status,
    `code ${String(body.code)} with status ${result.status}: ${context}`,
  );
  if (result.status === 401) assert.equal(result.headers.get('www-authenticate'), 'Bearer', context);
  if (result.status === 405) assert.match(result.headers.get('allow') ?? '', /^[A-Z]+(, [A-Z]+)*$/, `Allow: ${context}`);
  if (body.errors !== undefined) {
    assert.ok(Array.isArray(body.errors), context);
    for (const error of body.errors as unknown[]) {
      const { field, message } = error as { field: unknown; message: unknown };
      assert.equal(typeof field, 'string', `errors[].field: ${context}`);
      assert.equal(typeof message, 'string', `errors[].message: ${context}`);
    }
  }
  assertNoInternals(String(body.message), context);
}

/** The store is as it was. */
export function assertStoreUnchanged(before: StoreSnapshot, after: StoreSnapshot, context: string): void {
  assert.deepEqual(after, before, `the store changed: ${context}`);
}

/** A short description of a request for failure messages (bodies cut, so a 1 MiB body does not flood the log). */
export function describeRequest(request: { method: string; path: string; headers?: Record<string, string>; body?: string }): string {
  const body = request.body === undefined ? '' : ` body(${request.body.length})=${JSON.stringify(request.body.slice(0, 200))}`;
  return `${request.method} ${request.path.slice(0, 300)} headers=${JSON.stringify(request.headers ?? {}).slice(0, 300)}${body}`;
}
