import { toUnixSeconds } from '../../../domain/clock.js';
import { AppError } from '../../../domain/errors.js';
import { getGateway, listGateways } from '../../../domain/gateways/gateway-queries.js';
import type { Gateway } from '../../../domain/gateways/gateway-types.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { presentThing } from '../presenters.js';
import { userOf } from './resolver-helpers.js';

/** Gateways (SPEC section 16): the same domain functions as REST `GET /gateways` and `GET /gateways/{tuid}`. */
export const gatewayResolvers = {
  Query: {
    gateways: async (
      _: unknown,
      args: { q?: string | null; state?: string | null; first?: number | null; after?: string | null },
      context: GraphqlContext,
    ) => {
      const page = await listGateways(context.deps, userOf(context), {
        q: args.q ?? undefined,
        state: args.state ?? undefined,
        limit: args.first ?? undefined,
        cursor: args.after ?? undefined,
      });
      return {
        nodes: page.gateways.map(presentGateway),
        pageInfo: {
          hasNextPage: page.nextCursor !== null,
          hasPreviousPage: args.after != null,
          startCursor: null,
          endCursor: page.nextCursor,
        },
      };
    },
    gateway: async (_: unknown, args: { tuid: string }, context: GraphqlContext) => {
      try {
        const gateway = await getGateway(context.deps, userOf(context), args.tuid);
        return { gateway: presentGateway(gateway), things: gateway.things.map(presentThing) };
      } catch (error) {
        // Like `thing`: null for a gateway the caller cannot see; bad input is still an error.
        if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
        throw error;
      }
    },
  },
};

function presentGateway(gateway: Gateway) {
  return {
    gatewayTuid: gateway.gatewayTuid,
    lastSeen: toUnixSeconds(gateway.lastSeen),
    silentSince: gateway.silentSince === null ? null : toUnixSeconds(gateway.silentSince),
    thingCount: gateway.thingCount,
    thingsSilent: gateway.thingsSilent,
    mqttUsername: gateway.mqttUsername,
  };
}
