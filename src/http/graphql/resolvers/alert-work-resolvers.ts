import { acknowledgeAlerts, listAlertWork } from '../../../domain/alerts/alert-work.js';
import type { AlertWorkItem } from '../../../domain/alerts/alert-work-types.js';
import { formatLocalDateTime } from '../../../domain/alerts/local-time.js';
import { toUnixSeconds } from '../../../domain/clock.js';
import { invalidField } from '../../../domain/errors.js';
import { shownGroupId } from '../../../domain/groups/unassigned-group.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

type AlertPeriodsArguments = {
  state?: string | null;
  alertType?: string | null;
  severity?: string | null;
  groupId?: string | null;
  tuid?: string | null;
  gatewayTuid?: string | null;
  incidentId?: string | null;
  acknowledged?: boolean | null;
  from?: number | null;
  to?: number | null;
  first?: number | null;
  after?: string | null;
};

/** Alert periods as work items (SPEC section 16): the same domain functions as REST `GET /alerts` and its acknowledgements. */
export const alertWorkResolvers = {
  Query: {
    alertPeriods: async (_: unknown, args: AlertPeriodsArguments, context: GraphqlContext) => {
      const page = await listAlertWork(context.deps, userOf(context), {
        state: args.state ?? undefined,
        alertType: args.alertType ?? undefined,
        severity: args.severity ?? undefined,
        groupId: args.groupId ?? undefined,
        tuid: args.tuid ?? undefined,
        gatewayTuid: args.gatewayTuid ?? undefined,
        incidentId: args.incidentId ?? undefined,
        acknowledged: args.acknowledged ?? undefined,
        from: args.from ?? undefined,
        to: args.to ?? undefined,
        limit: args.first ?? undefined,
        cursor: args.after ?? undefined,
      });
      const zone = context.deps.config.alertTimeZone;
      return {
        nodes: page.alerts.map((item) => presentAlertWorkItem(item, zone)),
        pageInfo: {
          hasNextPage: page.nextCursor !== null,
          hasPreviousPage: args.after != null,
          startCursor: null,
          endCursor: page.nextCursor,
        },
      };
    },
  },
  Mutation: {
    acknowledgeAlert: async (_: unknown, args: { id: string; note?: string | null }, context: GraphqlContext) => {
      const [period] = await acknowledgeAlerts(context.deps, userOf(context), { ids: [periodId(args.id, 'id')], note: args.note });
      return presentAlertWorkItem(period!, context.deps.config.alertTimeZone);
    },
    acknowledgeAlerts: async (
      _: unknown,
      args: { incidentId?: string | null; ids?: string[] | null; note?: string | null },
      context: GraphqlContext,
    ) => {
      const ids = args.ids?.map((id) => periodId(id, 'ids'));
      const periods = await acknowledgeAlerts(context.deps, userOf(context), {
        ids,
        incidentId: args.incidentId ?? undefined,
        note: args.note,
      });
      return periods.map((item) => presentAlertWorkItem(item, context.deps.config.alertTimeZone));
    },
  },
};

/** A period's id as GraphQL's ID carries it (a string of digits). */
function periodId(id: string, field: string): number {
  if (!/^[1-9]\d{0,15}$/.test(id)) throw invalidField(field, `${field} must be a period id (a positive integer)`);
  return Number(id);
}

function presentAlertWorkItem(item: AlertWorkItem, zone: string) {
  return {
    id: String(item.id),
    tuid: item.tuid,
    alertType: item.alertType,
    severity: item.severity,
    ruleId: item.ruleId,
    value: item.value,
    from: formatLocalDateTime(item.openedAt, zone),
    to: item.closedAt === null ? null : formatLocalDateTime(item.closedAt, zone),
    fromTs: toUnixSeconds(item.openedAt),
    toTs: item.closedAt === null ? null : toUnixSeconds(item.closedAt),
    gatewayTuid: item.gatewayTuid,
    groupId: shownGroupId(item.groupId),
    incidentId: item.incidentId,
    acknowledged: item.acknowledged && { by: item.acknowledged.by, at: toUnixSeconds(item.acknowledged.at), note: item.acknowledged.note },
  };
}
