import type { FastifyRequest } from 'fastify';
import { sameSecret } from '../domain/auth/constant-time.js';

/** The token of an `Authorization: Bearer <token>` header, or undefined. REST and GraphQL read callers alike. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header);
  return match?.[1];
}

/**
 * Whether the request's bearer token is the configured shared token (METRICS_TOKEN, ...), compared in constant time
 * that does not reveal the token's length either (`sameSecret`). No header never matches.
 */
export function sendsSharedToken(request: FastifyRequest, token: string): boolean {
  const sent = bearerToken(request);
  return sameSecret(sent ?? '', token) && sent !== undefined;
}
