import { GraphQLError, type ASTNode, type GraphQLFormattedError } from 'graphql';
import { AppError, type ErrorCode } from '../../domain/errors.js';

/** The error catalog mapped once to GraphQL `extensions.code` (SPEC section 4). */
export const graphqlCodeOf: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'BAD_USER_INPUT',
  MALFORMED_JSON: 'BAD_USER_INPUT',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  INVALID_TRANSITION: 'CONFLICT',
  PAYLOAD_TOO_LARGE: 'BAD_USER_INPUT',
  UNSUPPORTED_MEDIA_TYPE: 'BAD_USER_INPUT',
  RATE_LIMITED: 'RATE_LIMITED',
  SERVICE_UNAVAILABLE: 'INTERNAL_SERVER_ERROR',
  INTERNAL: 'INTERNAL_SERVER_ERROR',
};

/**
 * Shapes every error a client sees: our AppErrors keep their message and get their code (with the bad fields
 * and, for transitions, the allowed states); GraphQL's own parse and validation errors are BAD_USER_INPUT unless
 * they already carry a code; anything else is INTERNAL_SERVER_ERROR with a generic message, never internals.
 */
export function formatGraphqlError(error: GraphQLError, log: (error: unknown) => void): GraphQLFormattedError {
  const original = error.originalError;
  if (original instanceof AppError) {
    const extensions: Record<string, unknown> = { code: graphqlCodeOf[original.code] };
    if (original.errors.length > 0) extensions.errors = original.errors;
    if (original.meta.allowed) extensions.allowed = original.meta.allowed;
    if (original.meta.retryAfterS) extensions.retryAfter = original.meta.retryAfterS;
    return { message: original.message, locations: error.locations, path: error.path, extensions };
  }
  if (original && !(original instanceof GraphQLError)) {
    log(original);
    return { message: 'An unexpected error occurred.', locations: error.locations, path: error.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
  const code = typeof error.extensions?.code === 'string' ? error.extensions.code : 'BAD_USER_INPUT';
  return { message: error.message, locations: error.locations, path: error.path, extensions: { ...error.extensions, code } };
}

/** A GraphQL error with a code, for rules raised outside resolvers (validation rules, transport). */
export function codedError(message: string, code: string, node?: ASTNode): GraphQLError {
  return new GraphQLError(message, { nodes: node, extensions: { code } });
}
