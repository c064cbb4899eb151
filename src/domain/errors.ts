/**
 * The one catalog of failures the platform reports. Transports map each code once: REST to an HTTP status
 * (src/http/problem.ts), GraphQL to `extensions.code`. docs/errors.md documents every code; a test keeps the three
 * in step.
 */
export const errorCatalog = {
  VALIDATION_FAILED: 'A request field is missing, of the wrong type or outside its allowed values.',
  MALFORMED_JSON: 'The request body is not valid JSON.',
  UNAUTHENTICATED: 'The token is missing, invalid, expired or revoked, or the credentials are wrong.',
  FORBIDDEN: 'The caller is signed in but its role does not allow this operation.',
  NOT_FOUND: 'No such thing, group or route for this organization.',
  METHOD_NOT_ALLOWED: 'The path exists but does not answer this HTTP method.',
  CONFLICT: 'The resource already exists or the request conflicts with its current state.',
  INVALID_TRANSITION: 'The installation status cannot move from its current state to the requested one.',
  PAYLOAD_TOO_LARGE: 'The request body is larger than the limit.',
  UNSUPPORTED_MEDIA_TYPE: 'The request body is not JSON.',
  REQUEST_TIMEOUT: 'The request did not arrive in full within the time the server waits for it.',
  HEADERS_TOO_LARGE: 'The request headers are larger than the server accepts.',
  RATE_LIMITED: 'Too many requests; retry after the given number of seconds.',
  COST_LIMIT: 'The request asks for more reading than one request may (its cost over the budget); ask for less.',
  SERVICE_UNAVAILABLE: 'A dependency (store or broker) is not reachable, or the platform has no room for this work now; retry later.',
  STARTING: 'The platform is still starting (migrations, the first organization); retry after the given number of seconds.',
  INTERNAL: 'An unexpected error; details are in the server log under the request id.',
} as const;

export type ErrorCode = keyof typeof errorCatalog;

/** One bad input, named by its path (`limit`, `commands[2].reportInterval`). */
export interface FieldProblem {
  field: string;
  message: string;
}

/** A failure with a stable code, safe to show to the caller. Anything else thrown is an internal error. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors: readonly FieldProblem[] = [],
    /** Extra facts for the transport, e.g. `retryAfterS` for RATE_LIMITED or `allowed` for INVALID_TRANSITION. */
    readonly meta: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export function validationFailed(errors: readonly FieldProblem[], message?: string): AppError {
  const summary =
    message ?? (errors.length === 1 ? errors[0]!.message : `${errors.length} fields are invalid: ${errors.map((e) => e.field).join(', ')}`);
  return new AppError('VALIDATION_FAILED', summary, errors);
}

export function invalidField(field: string, message: string): AppError {
  return validationFailed([{ field, message }]);
}

/**
 * A problem with `field` stated by its rule, the end of a sentence about it (`must be 1 to 64 characters`). The
 * domain names fields its own way (`groupId`); a transport that knows a field by another name (REST's `group_id`)
 * states the same rule under that name with `withFieldNames`. The rule is not enumerable, so it never reaches a
 * client as a key of its own.
 */
export function fieldProblem(field: string, rule: string): FieldProblem {
  return Object.defineProperty({ field, message: `${field} ${rule}` }, 'rule', { value: rule, enumerable: false });
}

/**
 * The failure with its fields named as a transport knows them (`names`: domain field to the transport's name).
 * Only a VALIDATION_FAILED of problems stated by `fieldProblem` changes; anything else is returned as it is.
 */
export function withFieldNames(error: unknown, names: Readonly<Record<string, string>>): unknown {
  if (!(error instanceof AppError) || error.code !== 'VALIDATION_FAILED') return error;
  let renamed = false;
  const problems = error.errors.map((problem) => {
    const name = names[problem.field];
    const rule = (problem as { rule?: string }).rule;
    if (name === undefined || rule === undefined) return problem;
    renamed = true;
    return fieldProblem(name, rule);
  });
  return renamed ? validationFailed(problems) : error;
}

export function unauthenticated(message = 'Authentication is required: the token is missing, invalid or expired.'): AppError {
  return new AppError('UNAUTHENTICATED', message);
}

export function forbidden(message = 'Your role does not allow this operation.'): AppError {
  return new AppError('FORBIDDEN', message);
}

export function notFound(message: string): AppError {
  return new AppError('NOT_FOUND', message);
}

export function conflict(message: string): AppError {
  return new AppError('CONFLICT', message);
}

export function rateLimited(retryAfterS: number): AppError {
  return new AppError('RATE_LIMITED', `Rate limit exceeded; retry in ${retryAfterS} seconds.`, [], { retryAfterS });
}

/** Start-up has not finished: the caller is not refused, it is early (`Retry-After`). */
export function starting(): AppError {
  return new AppError('STARTING', 'The platform is starting; retry in a second.', [], { retryAfterS: 1 });
}

export function serviceUnavailable(message = 'The service is temporarily unavailable; retry later.'): AppError {
  return new AppError('SERVICE_UNAVAILABLE', message);
}

/**
 * Raised by the store when a unique key already exists. Declared here, with the domain's other failures, so that
 * the domain turns it into a CONFLICT without importing the store.
 */
export class DuplicateKeyError extends Error {
  constructor(readonly entity: string) {
    super(`${entity} already exists`);
    this.name = 'DuplicateKeyError';
  }
}
