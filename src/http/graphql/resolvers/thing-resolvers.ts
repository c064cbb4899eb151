import { AppError } from '../../../domain/errors.js';
import { requireThing } from '../../../domain/things/thing-access.js';
import { listThings } from '../../../domain/things/thing-queries.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { namingArguments } from '../graphql-errors.js';
import { presentThing } from '../presenters.js';
import { userOf } from './resolver-helpers.js';

type ThingsArguments = {
  first?: number | null;
  after?: string | null;
  groupId?: string | null;
  installationStatus?: string | null;
  q?: string | null;
  alerting?: boolean | null;
};

/** One thing, and the organization's things a page at a time: the same domain functions as REST. */
export const thingResolvers = {
  Query: {
    thing: async (_: unknown, args: { tuid: string }, context: GraphqlContext) => {
      try {
        return presentThing(await requireThing(context.deps, userOf(context), args.tuid));
      } catch (error) {
        // The SPEC's `thing` answers null for a thing the caller cannot see; bad input is still an error.
        if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
        throw error;
      }
    },
    things: namingArguments('things', async (_: unknown, args: ThingsArguments, context: GraphqlContext) => {
      const page = await listThings(context.deps, userOf(context), {
        limit: args.first ?? undefined,
        cursor: args.after ?? undefined,
        groupId: args.groupId ?? undefined,
        installationStatus: args.installationStatus ?? undefined,
        q: args.q ?? undefined,
        alerting: args.alerting ?? undefined,
      });
      const nodes = page.things.map(presentThing);
      const edges = nodes.map((node) => ({ cursor: Buffer.from(`t:${node.tuid}`).toString('base64url'), node }));
      const pageInfo = {
        hasNextPage: page.nextCursor !== null,
        // Pages go forward only; a page asked for after a cursor has things before it (Relay allows no more).
        hasPreviousPage: args.after != null,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: page.nextCursor,
      };
      return { nodes, edges, pageInfo };
    }),
  },
};
