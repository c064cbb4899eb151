import { Type } from '@sinclair/typebox';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { dataOf, errors } from '../schemas.js';

const ClientTokenBody = Type.Object(
  { client_id: Type.String({ minLength: 1, maxLength: 128 }), client_secret: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);

/** Endpoint 1: `POST /auth/client-token`, the only REST call without a token. */
export function registerAuthRoutes(app: RestApp, deps: RestDeps): void {
  app.post(
    '/auth/client-token',
    {
      config: { public: true },
      schema: {
        operationId: 'createClientToken',
        tags: ['auth'],
        summary: 'Create a client access token (15 minutes)',
        body: ClientTokenBody,
        response: { 200: dataOf(Type.Object({ token: Type.String(), expires_in: Type.Integer() })), ...errors(400, 401, 415, 429) },
      },
    },
    async (request) => {
      const issued = await deps.clientTokens.issue(request.body.client_id, request.body.client_secret);
      return { data: { token: issued.token, expires_in: issued.expiresIn } };
    },
  );
}
