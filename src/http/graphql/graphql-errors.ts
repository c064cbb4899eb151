import { GraphQLError, type ASTNode, type GraphQLFormattedError } from 'graphql';
import { AppError, withFieldNames, type ErrorCode } from '../../domain/errors.js';
import { toAppError } from '../problem.js';

/** The error catalog mapped once to GraphQL `extensions.code` (SPEC section 4). */
export const graphqlCodeOf: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'BAD_USER_INPUT',
  MALFORMED_JSON: 'BAD_USER_INPUT',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  // Answered by the HTTP server before any route; listed for completeness.
  METHOD_NOT_ALLOWED: 'BAD_USER_INPUT',
  CONFLICT: 'CONFLICT',
  INVALID_TRANSITION: 'CONFLICT',
  PAYLOAD_TOO_LARGE: 'BAD_USER_INPUT',
  UNSUPPORTED_MEDIA_TYPE: 'BAD_USER_INPUT',
  // Answered by the HTTP server before any route (client-error.ts); listed for completeness.
  REQUEST_TIMEOUT: 'BAD_USER_INPUT',
  HEADERS_TOO_LARGE: 'BAD_USER_INPUT',
  RATE_LIMITED: 'RATE_LIMITED',
  COST_LIMIT: 'COST_LIMIT',
  // SPEC section 4 fixes the list of codes, so an outage stays INTERNAL_SERVER_ERROR for clients that switch on
  // it; `extensions.retryable` and the message tell a temporary outage from a bug.
  SERVICE_UNAVAILABLE: 'INTERNAL_SERVER_ERROR',
  STARTING: 'INTERNAL_SERVER_ERROR',
  INTERNAL: 'INTERNAL_SERVER_ERROR',
};

/**
 * Shapes every error a client sees: our AppErrors (and what `toAppError` recognizes, such as an unreachable store)
 * keep their message and get their code (with the bad fields and, for transitions, the allowed states); GraphQL's
 * own parse and validation errors are BAD_USER_INPUT unless they already carry a code; anything else is
 * INTERNAL_SERVER_ERROR with a generic message, never internals.
 */
export function formatGraphqlError(error: GraphQLError, log: (error: unknown) => void): GraphQLFormattedError {
  // The same mapping as REST's (toAppError): e.g. a store that cannot be reached becomes SERVICE_UNAVAILABLE.
  const mapped = error.originalError && !(error.originalError instanceof GraphQLError) ? toAppError(error.originalError) : undefined;
  const original = mapped && mapped.code !== 'INTERNAL' ? mapped : error.originalError;
  if (original instanceof AppError) return { ...appErrorAsGraphql(original), locations: error.locations, path: error.path };
  if (original && !(original instanceof GraphQLError)) {
    log(original);
    return {
      message: 'An unexpected error occurred.',
      locations: error.locations,
      path: error.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    };
  }
  const code = typeof error.extensions?.code === 'string' ? error.extensions.code : 'BAD_USER_INPUT';
  return { message: error.message, locations: error.locations, path: error.path, extensions: { ...error.extensions, code } };
}

/** An AppError as a GraphQL error: its message, its code, and what the code carries (fields, allowed states, ...). */
export function appErrorAsGraphql(error: AppError): { message: string; extensions: Record<string, unknown> } {
  const extensions: Record<string, unknown> = { code: graphqlCodeOf[error.code] };
  if (error.errors.length > 0) extensions.errors = error.errors;
  if (error.meta.allowed) extensions.allowed = error.meta.allowed;
  if (error.meta.retryAfterS) extensions.retryAfter = error.meta.retryAfterS;
  if (error.code === 'SERVICE_UNAVAILABLE' || error.code === 'STARTING') extensions.retryable = true;
  if (error.code === 'COST_LIMIT') Object.assign(extensions, { budget: error.meta.budget, cost: error.meta.cost });
  return { message: error.message, extensions };
}

/**
 * The domain's field names to a root field's argument names, where they differ (`things(first, after)` pages with
 * the domain's `limit` and `cursor`). Every other argument has the domain's name.
 */
const argumentNames = {
  things: { limit: 'first', cursor: 'after' },
  changePassword: { currentPassword: 'current', newPassword: 'new' },
} as const satisfies Record<string, Readonly<Record<string, string>>>;

/** A resolver whose VALIDATION_FAILED names the fields as the arguments of `field` do. */
export function namingArguments<A extends unknown[], R>(
  field: keyof typeof argumentNames,
  resolve: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await resolve(...args);
    } catch (error) {
      throw withFieldNames(error, argumentNames[field]);
    }
  };
}

/** A GraphQL error with a code, for rules raised outside resolvers (validation rules, transport). */
export function codedError(message: string, code: string, node?: ASTNode): GraphQLError {
  return new GraphQLError(message, { nodes: node, extensions: { code } });
}
