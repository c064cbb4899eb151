import type { IResolvers } from '@graphql-tools/utils';
import { GraphQLJSON } from './json-scalar.js';
import { adminResolvers } from './admin-resolvers.js';
import { commandResolvers } from './command-resolvers.js';
import { fieldServiceResolvers } from './field-service-resolvers.js';
import { sessionResolvers } from './session-resolvers.js';
import { subscriptionResolvers } from './subscription-resolvers.js';
import { thingResolvers } from './thing-resolvers.js';

/** Every resolver of the full schema, by type; each group lives in its own file. */
export function allResolvers(): IResolvers {
  const groups = [sessionResolvers, thingResolvers, commandResolvers, fieldServiceResolvers, adminResolvers, subscriptionResolvers] as IResolvers[];
  const merged: Record<string, Record<string, unknown>> = { JSON: GraphQLJSON as never };
  for (const group of groups) {
    for (const [type, fields] of Object.entries(group)) merged[type] = { ...(merged[type] ?? {}), ...(fields as Record<string, unknown>) };
  }
  return merged as IResolvers;
}
