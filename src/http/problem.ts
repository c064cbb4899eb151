import { STATUS_CODES } from 'node:http';
import type { FastifyReply } from 'fastify';
import { AppError, serviceUnavailable, withFieldNames, type ErrorCode, type FieldProblem } from '../domain/errors.js';
import { isStoreUnavailable, isTemporaryStoreFailure } from '../store/store-unavailable.js';
import { validationFailedOf, type AjvError } from './validation-problems.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The domain's field names to this route's (`groupId` to `group_id` in a body, `groupid` in a path), where
     * they differ: a VALIDATION_FAILED from the domain names the fields as the route's caller knows them.
     */
    fieldNames?: Readonly<Record<string, string>>;
  }
}

/** The HTTP status of each error code: the one mapping of the error catalog to REST. */
export const httpStatusOf: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  INVALID_TRANSITION: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  COST_LIMIT: 400,
  SERVICE_UNAVAILABLE: 503,
  STARTING: 503,
  INTERNAL: 500,
};

/** The error body of SPEC section 3, which existing clients parse (they re-authenticate on `statusCode` 401). */
export interface ProblemBody {
  statusCode: number;
  error: string;
  message: string;
  code: ErrorCode;
  errors?: FieldProblem[];
  [extra: string]: unknown;
}

export function problemBody(error: AppError): ProblemBody {
  const statusCode = httpStatusOf[error.code];
  const body: ProblemBody = { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message: error.message, code: error.code };
  if (error.errors.length > 0) body.errors = [...error.errors];
  if (error.code === 'INVALID_TRANSITION' && Array.isArray(error.meta.allowed)) body.allowed = error.meta.allowed;
  return body;
}

/** Sends an AppError with its status, headers and body, its fields named as the route names them. */
export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  const fieldNames = reply.request.routeOptions.config?.fieldNames;
  const body = problemBody(fieldNames ? (withFieldNames(error, fieldNames) as AppError) : error);
  if (error.code === 'UNAUTHENTICATED') reply.header('www-authenticate', 'Bearer');
  if (error.code === 'METHOD_NOT_ALLOWED' && Array.isArray(error.meta.allow)) reply.header('allow', error.meta.allow.join(', '));
  if (error.meta.retryAfterS !== undefined) reply.header('retry-after', String(error.meta.retryAfterS));
  return reply.code(body.statusCode).type('application/json; charset=utf-8').send(body);
}

/**
 * Turns anything thrown inside a request into an AppError: our own pass through; a store that cannot be reached
 * (connection refused or lost, pool timeout) is SERVICE_UNAVAILABLE, a temporary failure the caller retries;
 * fastify's body, content-type and schema errors get their catalog code; everything else becomes INTERNAL with no
 * details. REST's error handler and GraphQL's error formatter both call it, so the mapping is written once.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isStoreUnavailable(error)) return serviceUnavailable('The store is not reachable right now; retry later.');
  // SQLite's write lock held past busy_timeout (a long import, a stuck writer), a full disk: the same request succeeds later.
  if (isTemporaryStoreFailure(error)) return serviceUnavailable('The store is busy right now; retry later.');
  const e = error as { code?: string; statusCode?: number; validation?: AjvError[]; validationContext?: string; message?: string };
  if (e.validation) return validationFailedOf([{ context: e.validationContext, errors: e.validation }]);
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 1 MiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json).');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('MALFORMED_JSON', 'The request body is empty but Content-Type says JSON.');
    case 'FST_ERR_BAD_URL':
      return new AppError('VALIDATION_FAILED', 'The URL is not valid percent-encoded UTF-8.', [
        { field: 'url', message: 'url is not valid percent-encoded UTF-8' },
      ]);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('VALIDATION_FAILED', 'A path parameter is too long.', [
        { field: 'url', message: 'url has a path parameter longer than 256 characters' },
      ]);
  }
  if (e.statusCode === 400 && (e.code === undefined || e.code.startsWith('FST_ERR_CTP') || error instanceof SyntaxError)) {
    return new AppError('MALFORMED_JSON', 'The request body is not valid JSON.');
  }
  if (e.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 1 MiB.');
  if (e.statusCode === 415)
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json).');
  return new AppError('INTERNAL', 'An unexpected error occurred.');
}
