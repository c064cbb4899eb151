import { AppError, fieldProblem, validationFailed } from '../../../domain/errors.js';
import { updateThing } from '../../../domain/things/thing-update.js';
import { requireThing } from '../../../domain/things/thing-access.js';
import { countThings, listThings, type ThingTotal } from '../../../domain/things/thing-queries.js';
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
  gatewayTuid?: string | null;
  batteryBelow?: number | null;
  silentForS?: number | null;
  sort?: string | null;
  labels?: readonly { key: string; value: string }[] | null;
};

type UpdateThingArguments = { tuid: string; name?: string | null; labels?: readonly { key: string; value: string }[] | null };

/** One thing, and the organization's things a page at a time: the same domain functions as REST. */
export const thingResolvers = {
  ThingConnection: {
    total: (parent: { total: () => Promise<number> }) => parent.total(),
    totalIsEstimate: (parent: { totalIsEstimate: () => Promise<boolean> }) => parent.totalIsEstimate(),
  },
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
      const input = {
        limit: args.first ?? undefined,
        cursor: args.after ?? undefined,
        groupId: args.groupId ?? undefined,
        installationStatus: args.installationStatus ?? undefined,
        q: args.q ?? undefined,
        alerting: args.alerting ?? undefined,
        gatewayTuid: args.gatewayTuid ?? undefined,
        batteryBelow: args.batteryBelow ?? undefined,
        silentForS: args.silentForS ?? undefined,
        sort: args.sort ?? undefined,
        labels: args.labels ?? undefined,
      };
      const principal = userOf(context);
      const page = await listThings(context.deps, principal, input);
      const nodes = page.things.map(presentThing);
      const edges = nodes.map((node, i) => ({ cursor: page.cursors[i]!, node }));
      // Counted only when the selection asks for it, once for both fields.
      let counted: Promise<ThingTotal> | undefined;
      const count = () => (counted ??= namingArguments('things', () => countThings(context.deps, principal, input))());
      const pageInfo = {
        hasNextPage: page.nextCursor !== null,
        // Pages go forward only; a page asked for after a cursor has things before it (Relay allows no more).
        hasPreviousPage: args.after != null,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: page.nextCursor,
      };
      return {
        nodes,
        edges,
        pageInfo,
        total: async () => (await count()).total,
        totalIsEstimate: async () => (await count()).totalIsEstimate,
      };
    }),
  },
  Mutation: {
    updateThing: async (_: unknown, args: UpdateThingArguments, context: GraphqlContext) => {
      // An argument left out stays as it is; `labels: null` is taken as no labels, `name: null` clears the name.
      const labels = args.labels === undefined ? undefined : labelsOf(args.labels ?? []);
      return presentThing(await updateThing(context.deps, userOf(context), { tuid: args.tuid, name: args.name, labels }));
    },
  },
};

/** A list of labels as the map the domain takes; a key given twice is refused (the map would keep one silently). */
function labelsOf(list: readonly { key: string; value: string }[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const { key, value } of list) {
    if (Object.hasOwn(labels, key)) throw validationFailed([fieldProblem('labels', `key "${key}" is given more than once`)]);
    labels[key] = value;
  }
  return labels;
}
