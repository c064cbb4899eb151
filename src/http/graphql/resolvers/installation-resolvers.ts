import { listInstallationHistory, setInstallationStatus } from '../../../domain/installations/installation-service.js';
import { allowedNextStatuses } from '../../../domain/installations/installation-state-machine.js';
import type { InstallationStatus } from '../../../domain/things/thing-types.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { presentInstallationChange, presentInstallationEntry } from '../presenters.js';
import { userOf } from './resolver-helpers.js';

/** A thing's installation status and its history: the same domain functions as REST. */
export const installationResolvers = {
  Thing: {
    // Read from the state machine, so a client offers only the moves setInstallationStatus would accept.
    nextInstallationStatuses: (thing: { installationStatus: InstallationStatus }) => allowedNextStatuses(thing.installationStatus),
  },
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
