import type { FastifyRequest } from 'fastify';
import { forbidden, unauthenticated } from '../../domain/errors.js';
import type { ClientPrincipal } from '../../domain/auth/principal.js';
import type { Role } from '../../domain/identity/types.js';
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
  request.client = (await deps.providerTokens?.verifyAsClient(token)) ?? (await deps.clientTokens.verify(token));
  deps.limits.perCaller.hit(`client:${request.client.clientId}`);
  if (request.client.role !== undefined) checkProviderTokenRole(request, request.client.role);
}

/**
 * An identity provider's access token on REST acts with the role OIDC_ROLE_MAP gives it (SPEC section 15), as its
 * GraphQL schema would: a Viewer only reads, an Installer also sets installation status and group, a Manager does all.
 */
function checkProviderTokenRole(request: FastifyRequest, role: Role): void {
  if (role === 'Manager' || request.method === 'GET' || request.method === 'HEAD') return;
  const route = request.routeOptions.url ?? '';
  if (role === 'Installer' && request.method === 'POST' && /\/things\/:tuid\/(installations|group)\/?$/.test(route)) return;
  throw forbidden(`A provider token with the ${role} role may not call ${request.method} ${route}.`);
}
