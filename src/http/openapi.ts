import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * OpenAPI 3.1 generated from the same TypeBox schemas that validate requests (`GET /openapi.json`), and a docs
 * page rendering it (`GET /docs`, assets served from the package: no CDN). Must be registered before the routes.
 */
export async function registerOpenApi(app: FastifyInstance, options: { restBasePath: string; version: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'thingdesk REST API',
        version: options.version,
        description:
          'Device management REST interface (seed 000 and SPEC section 3). Every success is HTTP 200 with `{"data": ...}`; every error is `{statusCode, error, message, code, errors?}`. Get a token from `POST /auth/client-token` and send it as `Authorization: Bearer <token>`.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    // Only the REST interface belongs in this document; health, metrics, JWKS and GraphQL are documented elsewhere.
    transform: ({ schema, url, route }) => {
      const hide = !url.startsWith(options.restBasePath);
      const isPublic = route.config?.public === true;
      return { schema: { ...schema, hide, ...(isPublic && { security: [] }) } as typeof schema, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: false } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
