import { deploymentStatus, keepsInstanceRegister } from '../../../domain/deployment/instance-registry.js';
import { toUnixSeconds } from '../../../domain/clock.js';
import type { GraphqlContext } from '../graphql-deps.js';

/** The deployment's instances for a Manager (the same register as `thingdesk status`), without their hosts. */
export const deploymentResolvers = {
  Query: {
    deployment: async (_: unknown, _args: unknown, context: GraphqlContext) => {
      if (!keepsInstanceRegister(context.deps.config.databaseUrl)) return { registered: false, instances: [] };
      const instances = await deploymentStatus(context.deps);
      return {
        registered: true,
        instances: instances.map((instance) => ({
          id: instance.id,
          version: instance.version,
          startedAt: toUnixSeconds(instance.startedAt),
          heartbeatAt: toUnixSeconds(instance.heartbeatAt),
          live: instance.live,
          broker: instance.details.mqtt,
          consumerSlots: instance.details.consumer?.slots ?? [],
          uplinksInFlight: instance.details.consumer?.inFlight ?? null,
          consumerLagMs: instance.details.consumer?.lagMs ?? null,
          liveSubscriptions: instance.details.liveSubscriptions ?? null,
          leases: instance.leases,
        })),
      };
    },
  },
};
