import type { FastifyRequest } from 'fastify';
import { unauthenticated } from '../../domain/errors.js';
import type { ClientPrincipal } from '../../domain/auth/principal.js';
import { bearerToken } from '../bearer-token.js';
import type { RestDeps } from './rest-deps.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The REST client behind the bearer token; set by `authenticateClient` before any handler runs. */
    client: ClientPrincipal;
  }
}

/**
 * Rate limits per address, authenticates the client, then rate limits per client. Counting a token before it is
 * verified would let anyone fill the limiter with made-up tokens, so an unverified token counts only against its
 * address. Runs as an onRequest hook, so an unauthenticated request costs no body parsing.
 */
export async function limitAndAuthenticate(request: FastifyRequest, deps: RestDeps, requireToken: boolean): Promise<void> {
  deps.limits.perAddress.hit(request.ip);
  if (!requireToken) return;
  const token = bearerToken(request);
  if (token === undefined) throw unauthenticated('Send a client token as Authorization: Bearer <token>.');
  request.client = await deps.clientTokens.verify(token);
  deps.limits.perCaller.hit(`client:${request.client.clientId}`);
}
