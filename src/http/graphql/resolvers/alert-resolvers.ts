import { countActiveAlerts, listAlertingTuids, listThingAlerts } from '../../../domain/alerts/alert-queries.js';
import { alertTypes, type AlertType } from '../../../domain/alerts/alert-types.js';
import { formatLocalDateTime } from '../../../domain/alerts/local-time.js';
import { iterateEvents } from '../event-iterator.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { unboundedQueue, userOf } from './resolver-helpers.js';

/** The AlertType enum's values to the alert types as REST and the alert feed spell them. */
export const alertTypeEnum: Readonly<Record<string, AlertType | 'rule'>> = {
  GATEWAY_CONNECTION_LOST: 'gateway connection lost',
  DEVICE_CONNECTION_LOST: 'device connection lost',
  BATTERY_LOW: 'battery low',
  RULE: 'rule',
};

/** The enum value of an alert type: a built-in one, or RULE for a rule's name (SPEC section 13). */
export function alertTypeValue(alertType: string): AlertType | 'rule' {
  return (alertTypes as readonly string[]).includes(alertType) ? (alertType as AlertType) : 'rule';
}

/** The enum field beside `alertType`: the same value, which the AlertType enum shows by its name. */
const typeOfAlert = { type: (parent: { alertType: string }) => alertTypeValue(parent.alertType) };

/** A thing's alert periods, the organization's active alerts, and every alert period opening or closing, live. */
export const alertResolvers = {
  AlertType: alertTypeEnum,
  AlertRecord: typeOfAlert,
  AlertEvent: typeOfAlert,
  Query: {
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
  },
  Subscription: {
    alerts: {
      subscribe: (_: unknown, _args: unknown, context: GraphqlContext) => {
        const { organizationId } = userOf(context);
        const zone = context.deps.config.alertTimeZone;
        return iterateEvents(context.deps.events, 'alertChanged', context.live ?? unboundedQueue, (event) =>
          event.organizationId !== organizationId
            ? []
            : [
                {
                  alerts: {
                    tuid: event.tuid,
                    alertType: event.alertType,
                    state: event.state,
                    from: formatLocalDateTime(event.openedAt, zone),
                    to: event.closedAt === null ? null : formatLocalDateTime(event.closedAt, zone),
                    ruleId: event.rule?.ruleId ?? null,
                    severity: event.rule?.severity ?? null,
                    value: event.rule?.value ?? null,
                  },
                },
              ],
        );
      },
    },
  },
};
