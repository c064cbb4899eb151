import { readFleetHealth } from '../../../domain/fleet/fleet-health.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { alertTypeValue } from './alert-resolvers.js';
import { userOf } from './resolver-helpers.js';

type FleetHealthArguments = { days?: number | null; limit?: number | null; batteryBelow?: number | null };

/** The fleet overview: the same domain function as REST's `GET /fleet/health`; the domain's shape is the schema's. */
export const fleetResolvers = {
  // The enum field beside `alertType`: the AlertType enum shows the same value by its name.
  ActiveAlert: { type: (parent: { alertType: string }) => alertTypeValue(parent.alertType) },
  Query: {
    fleetHealth: (_: unknown, args: FleetHealthArguments, context: GraphqlContext) =>
      readFleetHealth(
        { ...context.deps, timeZone: context.deps.config.alertTimeZone, batteryLowPercent: context.deps.config.batteryLowPercent },
        userOf(context),
        { days: args.days ?? undefined, limit: args.limit ?? undefined, batteryBelow: args.batteryBelow ?? undefined },
        context.work,
      ),
  },
};
