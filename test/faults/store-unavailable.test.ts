/** Which store errors are a temporary outage (503 SERVICE_UNAVAILABLE) and which stay internal (500): one table. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toAppError } from '../../src/http/problem.js';
import { isStoreUnavailable, isTemporaryStoreFailure } from '../../src/store/store-unavailable.js';

const coded = (message: string, code: string) => Object.assign(new Error(message), { code });

const cases: [string, unknown, boolean][] = [
  ['connection refused', coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), true],
  ['connection reset', coded('read ECONNRESET', 'ECONNRESET'), true],
  [
    'happy-eyeballs connect of every address refused',
    new AggregateError([
      coded('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED'),
      coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    ]),
    true,
  ],
  ['server shutting down (admin_shutdown)', coded('terminating connection due to administrator command', '57P01'), true],
  ['server crashed (crash_shutdown)', coded('terminating connection because of crash of another server process', '57P02'), true],
  ['server starting up (cannot_connect_now)', coded('the database system is starting up', '57P03'), true],
  ['too many connections', coded('sorry, too many clients already', '53300'), true],
  ['connection exception class 08', coded('connection failure', '08006'), true],
  ['connection lost mid-query', new Error('Connection terminated unexpectedly'), true],
  ['pool connect timeout', new Error('timeout exceeded when trying to connect'), true],
  ['connect timeout of the client', new Error('Connection terminated due to connection timeout'), true],
  ['a client broken earlier', new Error('Client has encountered a connection error and is not queryable'), true],
  ['wrapped in a cause', new Error('query failed', { cause: coded('read ECONNRESET', 'ECONNRESET') }), true],
  ['statement timeout on the server (STORE_TIMEOUT_MS)', coded('canceling statement due to statement timeout', '57014'), true],
  ['disk full', coded('could not extend file: No space left on device', '53100'), true],
  ['unique violation', coded('duplicate key value violates unique constraint', '23505'), false],
  ['syntax error', coded('syntax error at or near "selec"', '42601'), false],
  ['deadlock', coded('deadlock detected', '40P01'), false],
  ['invalid byte sequence', coded('invalid byte sequence for encoding "UTF8": 0x00', '22021'), false],
  ['SQLite busy', coded('database is locked', 'SQLITE_BUSY'), false],
  ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'x')"), false],
  ['not an error', 'ECONNREFUSED', false],
];

describe('temporary write failures: the uplink batcher retries these whole instead of isolating a payload', () => {
  const temporary: [string, unknown, boolean][] = [
    ['SQLite busy', coded('database is locked', 'SQLITE_BUSY'), true],
    ['SQLite disk full', coded('database or disk is full', 'SQLITE_FULL'), true],
    ['SQLite I/O error', coded('disk I/O error', 'SQLITE_IOERR_WRITE'), true],
    ['connection refused', coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), true],
    ['the writer thread ran out of memory', new Error('the uplink writer thread exited with code 1'), false],
    ['a value the column refuses', coded('value too long for type character varying(64)', '22001'), false],
  ];
  for (const [name, error, expected] of temporary) {
    test(`${name}: ${expected ? 'temporary' : 'the data'}`, () => assert.equal(isTemporaryStoreFailure(error), expected));
  }
});

describe('store unavailable errors', () => {
  for (const [name, error, unavailable] of cases) {
    // A store that is there but busy past busy_timeout (SQLite's lock) is not unreachable, yet the same request
    // succeeds later: it is answered 503 too.
    const retryable = unavailable || isTemporaryStoreFailure(error);
    test(`${name}: ${retryable ? '503 SERVICE_UNAVAILABLE' : '500 INTERNAL'}`, () => {
      assert.equal(isStoreUnavailable(error), unavailable);
      const mapped = toAppError(error);
      assert.equal(mapped.code, retryable ? 'SERVICE_UNAVAILABLE' : 'INTERNAL');
      assert.doesNotMatch(mapped.message, /ECONN|127\.0\.0\.1|Connection terminated|0x00/, 'no internals in the message');
    });
  }
});
