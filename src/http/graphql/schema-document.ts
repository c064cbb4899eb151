import type { FastifyInstance, FastifyRequest } from 'fastify';
import { printSchema, type GraphQLSchema } from 'graphql';
import { fieldProblem, forbidden, unauthenticated, validationFailed } from '../../domain/errors.js';
import type { Role } from '../../domain/identity/types.js';
import { audienceOf, type Audience } from './access.js';

/** Roles in the order of their schemas: each role's schema contains those before it. */
const roleOrder: readonly Role[] = ['Viewer', 'Installer', 'Manager'];

/** Where each role's schema is published as SDL, below GRAPHQL_PATH. */
export function schemaDocumentPath(graphqlPath: string): string {
  return `${graphqlPath}/schema.graphql`;
}

/**
 * `GET GRAPHQL_PATH/schema.graphql?role=viewer|installer|manager`: a role schema as SDL, for code generators and
 * editors that read a file rather than introspect. Like introspection (seed 001) it needs a signed-in caller, and
 * shows only the caller's own schema or a smaller one (a Viewer cannot read the Manager's); without `role`, the
 * caller's own. The text is printed from the same schema that introspection answers from.
 */
export function registerSchemaDocument(
  app: FastifyInstance,
  options: {
    graphqlPath: string;
    schemas: Record<Audience, GraphQLSchema>;
    onRequest: (request: FastifyRequest) => Promise<void>;
    /** PLATFORM_OPERATOR_ORGANIZATIONS: their Managers' own schema is the platform operator's. */
    operatorOrganizations: readonly string[];
  },
): void {
  const printed = new Map<Audience, string>();
  app.get<{ Querystring: { role?: string } }>(
    schemaDocumentPath(options.graphqlPath),
    {
      schema: {
        hide: true,
        querystring: { type: 'object', properties: { role: { type: 'string', maxLength: 20 } }, additionalProperties: false },
      },
      onRequest: async (request) => options.onRequest(request),
    },
    async (request, reply) => {
      const caller = request.graphqlUser;
      if (!caller)
        throw unauthenticated(`${request.graphqlTokenProblem ?? 'No access token was sent.'} The schema needs a signed-in caller.`);
      const asked = request.query.role;
      const role: Audience | undefined =
        asked === undefined
          ? audienceOf(caller, options.operatorOrganizations)
          : roleOrder.find((candidate) => candidate.toLowerCase() === asked.toLowerCase());
      if (!role) throw validationFailed([fieldProblem('role', `must be one of ${roleOrder.map((name) => name.toLowerCase()).join(', ')}`)]);
      if (asked !== undefined && roleOrder.indexOf(role as Role) > roleOrder.indexOf(caller.role))
        throw forbidden(`A ${caller.role} may not read the ${role} schema.`);
      let text = printed.get(role);
      if (text === undefined) {
        text = `${printSchema(options.schemas[role])}\n`;
        printed.set(role, text);
      }
      return reply.type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(text);
    },
  );
}
