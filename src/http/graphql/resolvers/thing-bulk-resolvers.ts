import { applyToThings } from '../../../domain/things/thing-bulk.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

type Filter = {
  groupId?: string | null;
  installationStatus?: string | null;
  q?: string | null;
  alerting?: boolean | null;
  gatewayTuid?: string | null;
  batteryBelow?: number | null;
  silentForS?: number | null;
};

/** Bulk actions on things (SPEC section 16): the same domain function as REST `POST /things/bulk`. */
export const thingBulkResolvers = {
  Mutation: {
    bulkUpdateThings: (
      _: unknown,
      args: {
        action: string;
        tuids?: string[] | null;
        filter?: Filter | null;
        groupId?: string | null;
        installationStatus?: string | null;
        labels?: { key: string; value: string }[] | null;
        commands?: unknown[] | null;
      },
      context: GraphqlContext,
    ) => {
      const f = args.filter;
      const filter = f
        ? {
            groupId: f.groupId ?? undefined,
            installationStatus: f.installationStatus ?? undefined,
            q: f.q ?? undefined,
            alerting: f.alerting ?? undefined,
            gatewayTuid: f.gatewayTuid ?? undefined,
            batteryBelow: f.batteryBelow ?? undefined,
            silentForS: f.silentForS ?? undefined,
          }
        : undefined;
      return applyToThings(context.deps, userOf(context), {
        action: args.action,
        tuids: args.tuids ?? undefined,
        filter,
        groupId: args.groupId ?? undefined,
        installationStatus: args.installationStatus ?? undefined,
        labels: args.labels ? Object.fromEntries(args.labels.map((label) => [label.key, label.value])) : undefined,
        commands: args.commands ?? undefined,
      });
    },
  },
};
