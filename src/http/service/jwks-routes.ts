import type { FastifyInstance } from 'fastify';
import type { SigningKeys } from '../../domain/auth/signing-keys.js';

/** `GET /.well-known/jwks.json`: the public keys that verify the platform's tokens (RFC 7517). */
export function registerJwksRoutes(app: FastifyInstance, deps: { signingKeys: SigningKeys }): void {
  app.get('/.well-known/jwks.json', async (_request, reply) => {
    // Caches may keep the set briefly; a rotation shows within a minute and old keys stay listed for hours.
    reply.header('cache-control', 'public, max-age=60');
    return deps.signingKeys.jwks();
  });
}
