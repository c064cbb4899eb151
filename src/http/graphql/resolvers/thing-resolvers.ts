import { messageDefinitions } from '../../../catalog/index.js';
import { countActiveAlerts, listAlertingTuids, listThingAlerts } from '../../../domain/alerts/alert-queries.js';
import { AppError } from '../../../domain/errors.js';
import { getOwnOrganization } from '../../../domain/identity/identity-queries.js';
import { listMessages } from '../../../domain/messages/message-query.js';
import { requireThing } from '../../../domain/things/thing-access.js';
import { listThings } from '../../../domain/things/thing-queries.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { presentThing, userOf, withArgumentNames } from './resolver-helpers.js';

// The domain's field names (REST's query parameters) to the `things` arguments, for BAD_USER_INPUT.
const thingsArguments = { limit: 'first', cursor: 'after', group_id: 'groupId', installation_status: 'installationStatus' } as const;

/** Read-only queries every signed-in role has: who am I, things, messages, alerts, catalog. */
export const thingResolvers = {
  Query: {
    me: (_: unknown, _args: unknown, context: GraphqlContext) => {
      const user = userOf(context);
      return { id: user.userId, email: user.email, role: user.role, organizationId: user.organizationId };
    },
    organization: async (_: unknown, _args: unknown, context: GraphqlContext) => {
      const organization = await getOwnOrganization(context.deps, userOf(context));
      return { id: organization.id, name: organization.name };
    },
    thing: async (_: unknown, args: { tuid: string }, context: GraphqlContext) => {
      try {
        return presentThing(await requireThing(context.deps, userOf(context), args.tuid));
      } catch (error) {
        // The SPEC's `thing` answers null for a thing the caller cannot see; bad input is still an error.
        if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
        throw error;
      }
    },
    things: async (
      _: unknown,
      args: { first?: number | null; after?: string | null; groupId?: string | null; installationStatus?: string | null; q?: string | null },
      context: GraphqlContext,
    ) => {
      const page = await withArgumentNames(thingsArguments, () =>
        listThings(context.deps, userOf(context), {
          limit: args.first ?? undefined,
          cursor: args.after ?? undefined,
          groupId: args.groupId ?? undefined,
          installationStatus: args.installationStatus ?? undefined,
          q: args.q ?? undefined,
        }),
      );
      const nodes = page.things.map(presentThing);
      return {
        nodes,
        edges: nodes.map((node) => ({ cursor: Buffer.from(`t:${node.tuid}`).toString('base64url'), node })),
        pageInfo: { hasNextPage: page.nextCursor !== null, endCursor: page.nextCursor },
      };
    },
    messages: async (
      _: unknown,
      args: { tuid: string; messageIds?: number[] | null; eventIds?: number[] | null; from?: number | null; to?: number | null; limit: number },
      context: GraphqlContext,
    ) => {
      const texts = await listMessages(context.deps, userOf(context), {
        tuid: args.tuid,
        limit: args.limit,
        messageIds: args.messageIds ?? undefined,
        eventIds: args.eventIds ?? undefined,
        from: args.from ?? undefined,
        to: args.to ?? undefined,
      });
      const { rawJson } = context;
      return rawJson ? texts.map((text) => rawJson.wrap(text)) : texts.map((text) => JSON.parse(text) as unknown);
    },
    alerts: async (_: unknown, args: { tuid: string; from?: number | null; to?: number | null }, context: GraphqlContext) => {
      const records = await listThingAlerts({ ...context.deps, timeZone: context.deps.config.alertTimeZone }, userOf(context), {
        tuid: args.tuid,
        from: args.from ?? undefined,
        to: args.to ?? undefined,
      });
      return records.map((record) => ({ tuid: record.tuid, alertType: record.alert_type, alerts: record.alerts }));
    },
    alertingThings: (_: unknown, _args: unknown, context: GraphqlContext) => listAlertingTuids(context.deps, userOf(context)),
    alertCount: (_: unknown, _args: unknown, context: GraphqlContext) => countActiveAlerts(context.deps, userOf(context)),
    catalog: () => messageDefinitions,
  },
};
