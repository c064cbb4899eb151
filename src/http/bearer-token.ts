import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** The token of an `Authorization: Bearer <token>` header, or undefined. REST and GraphQL read callers alike. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header);
  return match?.[1];
}

/** Whether the request's bearer token is the configured shared token (METRICS_TOKEN, ...), compared in constant time. */
export function sendsSharedToken(request: FastifyRequest, token: string): boolean {
  const sent = Buffer.from(bearerToken(request) ?? '');
  const expected = Buffer.from(token);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}
