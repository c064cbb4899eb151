import { getRetention, setRetention, type OrganizationRetention } from '../../../domain/retention/retention-service.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

/**
 * The organization's retention: its fields of `Organization` (read by every role) and `setRetention` (Managers,
 * by the access table). An argument left out is unchanged; null returns it to the platform's default.
 */
export const retentionResolvers = {
  Organization: {
    retention: (parent: { id: string }, _args: unknown, context: GraphqlContext) => getRetention(context.deps, parent.id).then(present),
  },
  Mutation: {
    setRetention: async (
      _: unknown,
      args: { messageRetentionDays?: number | null; rollupRetentionDays?: number | null },
      context: GraphqlContext,
    ) => {
      const retention = await setRetention(
        context.deps,
        userOf(context).organizationId,
        {
          messageRetentionDays: args.messageRetentionDays,
          rollupRetentionDays: args.rollupRetentionDays,
        },
        userOf(context),
      );
      return present(retention);
    },
  },
};

function present(retention: OrganizationRetention) {
  return {
    messageRetentionDays: retention.messageRetentionDays,
    rollupRetentionDays: retention.rollupRetentionDays,
    messageRetentionOverride: retention.messageRetentionOverride,
    rollupRetentionOverride: retention.rollupRetentionOverride,
  };
}
