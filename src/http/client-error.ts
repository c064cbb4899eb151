import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../domain/errors.js';
import { problemBody } from './problem.js';

/**
 * The answer to a request Node's HTTP parser refuses before any route sees it (fastify's `clientErrorHandler`):
 * a malformed request line or header is 400 VALIDATION_FAILED, headers over the size limit 431 HEADERS_TOO_LARGE,
 * a chunk extension over its limit 413 PAYLOAD_TOO_LARGE, a request that did not arrive in time 408
 * REQUEST_TIMEOUT, each in the error shape of SPEC section 3 like every other error. The connection is closed
 * afterwards, since the rest of what the client sends cannot be read as requests. A connection the client reset
 * gets nothing: nobody is there to read it.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket, log: FastifyBaseLogger): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const appError = clientErrorAsAppError(error);
  log.debug({ err: error, code: appError.code }, 'client error');
  if (socket.writable) {
    const problem = problemBody(appError);
    const body = JSON.stringify(problem);
    socket.write(
      `HTTP/1.1 ${problem.statusCode} ${problem.error}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function clientErrorAsAppError(error: { code?: string }): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('HEADERS_TOO_LARGE', 'The request headers are larger than the server accepts.');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AppError('PAYLOAD_TOO_LARGE', 'The chunk extensions of the request body are larger than the server accepts.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT', 'The request did not arrive in full in time.');
    default:
      return new AppError('VALIDATION_FAILED', 'The request is not valid HTTP/1.1 (request line or headers malformed).', [
        { field: 'request', message: 'request is not valid HTTP/1.1' },
      ]);
  }
}
