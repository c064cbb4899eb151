import { listInstallationHistory, setInstallationStatus } from '../../../domain/installations/installation-service.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { presentInstallationChange, presentInstallationEntry } from '../presenters.js';
import { userOf } from './resolver-helpers.js';

/** A thing's installation status and its history: the same domain functions as REST. */
export const installationResolvers = {
  Query: {
    installations: async (_: unknown, args: { tuid: string; limit?: number | null }, context: GraphqlContext) =>
      (await listInstallationHistory(context.deps, userOf(context), { tuid: args.tuid, limit: args.limit ?? undefined })).map(
        presentInstallationEntry,
      ),
  },
  Mutation: {
    setInstallationStatus: async (_: unknown, args: { tuid: string; status: string }, context: GraphqlContext) =>
      presentInstallationChange(await setInstallationStatus(context.deps, userOf(context), { tuid: args.tuid, status: args.status })),
  },
};
