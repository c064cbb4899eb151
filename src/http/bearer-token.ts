import type { FastifyRequest } from 'fastify';

/** The token of an `Authorization: Bearer <token>` header, or undefined. REST and GraphQL read callers alike. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header);
  return match?.[1];
}
