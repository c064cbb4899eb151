/**
 * Requests Node's HTTP parser refuses before any route sees them (issue 12 item 14 g) are answered in the error shape
 * of SPEC section 3 like every other error, over a raw socket since no HTTP client sends such requests.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: { statusCode: number; error: string; message: string; code: string; errors?: { field: string; message: string }[] };
}

/** Sends bytes on a fresh connection and reads until the server closes it. */
function exchange(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined); // the server may reset while we still write; what it answered is read below
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      try {
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as RawAnswer['body'] });
      } catch (error) {
        reject(new Error(`not a JSON answer: ${JSON.stringify(text)} (${String(error)})`));
      }
    });
    socket.on('connect', () => socket.write(request));
  });
}

function assertShape(answer: RawAnswer, status: number, code: string) {
  assert.equal(answer.status, status);
  assert.match(answer.headers['content-type'] ?? '', /^application\/json; charset=utf-8$/);
  assert.equal(answer.body.statusCode, status);
  assert.equal(typeof answer.body.error, 'string');
  assert.equal(typeof answer.body.message, 'string');
  assert.equal(answer.body.code, code);
}

describe("Node's own refusals in the error shape", () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp();
  });
  after(() => server?.stop());

  test('a malformed request line or header is a 400 VALIDATION_FAILED', async () => {
    for (const request of [
      'GARBAGE\r\n\r\n',
      'GET /healthz HTTP/9.9\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      'GET /he\u0000lthz HTTP/1.1\r\nHost: x\r\n\r\n',
    ]) {
      const answer = await exchange(server.app.httpPort, request);
      assertShape(answer, 400, 'VALIDATION_FAILED');
      assert.equal(answer.body.error, 'Bad Request');
      assert.deepEqual(
        answer.body.errors?.map((e) => e.field),
        ['request'],
      );
    }
  });

  test('headers over the size limit are a 431 HEADERS_TOO_LARGE', async () => {
    const answer = await exchange(server.app.httpPort, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    assertShape(answer, 431, 'HEADERS_TOO_LARGE');
    assert.equal(answer.body.error, 'Request Header Fields Too Large');
  });

  test('a request that does not arrive in time is a 408 REQUEST_TIMEOUT', async () => {
    // Node's request timeout is minutes long; raise its error on a real connection instead of waiting for it.
    server.app.http.server.once('connection', (socket: Socket) => {
      setImmediate(() =>
        server.app.http.server.emit(
          'clientError',
          Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
          socket,
        ),
      );
    });
    const answer = await exchange(server.app.httpPort, 'GET /healthz HTTP/1.1\r\nHost: x\r\n');
    assertShape(answer, 408, 'REQUEST_TIMEOUT');
  });

  test('the server still answers normal requests', async () => {
    const response = await fetch(server.url('/healthz'));
    assert.equal(response.status, 200);
  });
});
