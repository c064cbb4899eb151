import { listAuditEntries, type AuditListInput } from '../../../domain/audit/audit-service.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

/** `auditLog` (Managers): the same page as `GET /audit`. */
export const auditResolvers = {
  Query: {
    auditLog: async (_: unknown, args: Omit<AuditListInput, 'limit'> & { limit?: number | null }, context: GraphqlContext) => {
      const input = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null && value !== undefined)) as AuditListInput;
      const page = await listAuditEntries(context.deps, userOf(context), input);
      return {
        entries: page.entries.map((entry) => ({ ...entry, at: new Date(entry.at).toISOString() })),
        nextCursor: page.nextCursor,
      };
    },
  },
};
