import { makeExecutableSchema } from '@graphql-tools/schema';
import { filterSchema, pruneSchema, type IResolvers } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';
import { audiences, mayCall, operationAccess, type Audience } from './access.js';
import { typeDefs } from './type-defs.js';

/**
 * One executable schema per audience, all cut from the one full schema: root fields outside the audience's row of
 * the access table are removed, then every type no longer reachable is pruned, so introspection cannot reveal a
 * Manager-only type to a Viewer. Built once at start-up.
 */
export function buildRoleSchemas(resolvers: IResolvers): Record<Audience, GraphQLSchema> {
  const full = makeExecutableSchema({ typeDefs, resolvers });
  const schemas = {} as Record<Audience, GraphQLSchema>;
  for (const audience of audiences) {
    const filtered = filterSchema({
      schema: full,
      rootFieldFilter: (operation, field) => mayCall(audience, operation, field),
    });
    schemas[audience] = pruneSchema(filtered);
  }
  return schemas;
}

/** Every root field of the full schema must have a row in the access table (checked by a test). */
export function operationsWithoutAccessRule(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  for (const [operation, type] of [
    ['Query', schema.getQueryType()],
    ['Mutation', schema.getMutationType()],
    ['Subscription', schema.getSubscriptionType()],
  ] as const) {
    for (const field of Object.keys(type?.getFields() ?? {})) {
      if (!(field in operationAccess[operation])) missing.push(`${operation}.${field}`);
    }
  }
  return missing;
}
