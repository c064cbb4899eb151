import type { Logger } from '../observability/logger.js';
import { formatLocalDateTime } from '../domain/alerts/local-time.js';
import type { AlertChanged, DomainEventBus } from '../domain/events.js';
import type { MqttTransport } from '../mqtt/mqtt-transport.js';
import { alertsTopic } from '../mqtt/topics.js';

/** The JSON object published on `thingdesk/{org}/alerts` for each opened or closed alert period (docs/mqtt.md). */
export interface AlertEventPayload {
  tuid: string;
  alert_type: string;
  state: 'opened' | 'closed';
  /** Local date-times in ALERT_TIMEZONE, as in the REST alert record; `to` null while active. */
  from: string;
  to: string | null;
  /** The same instants as Unix seconds, for consumers that do not want to parse local times. */
  opened_at: number;
  closed_at: number | null;
  /** The silent gateway of a `gateway connection lost` period, else null. */
  gateway_tuid: string | null;
  time_zone: string;
  /** Rule periods (SPEC section 13): the rule, its severity and the value that opened the period. */
  rule_id?: string;
  severity?: string;
  value?: number | null;
}

export function alertEventPayload(event: AlertChanged, timeZone: string): AlertEventPayload {
  return {
    tuid: event.tuid,
    alert_type: event.alertType,
    state: event.state,
    from: formatLocalDateTime(event.openedAt, timeZone),
    to: event.closedAt === null ? null : formatLocalDateTime(event.closedAt, timeZone),
    opened_at: Math.floor(event.openedAt / 1000),
    closed_at: event.closedAt === null ? null : Math.floor(event.closedAt / 1000),
    gateway_tuid: event.gatewayTuid ?? null,
    time_zone: timeZone,
    ...(event.rule && { rule_id: event.rule.ruleId, severity: event.rule.severity, value: event.rule.value }),
  };
}

/**
 * The live alert feed (SPEC section 7): every `alertChanged` event as one JSON object on the organization's alerts
 * topic, QoS 1, not retained. It listens to the domain event; the engine knows nothing of MQTT. Published by the
 * instance that made the change, after the store write: a crash between the two loses the event (the period is in
 * the store), never the other way round. Returns the function that stops listening.
 */
export function startAlertFeed(deps: { events: DomainEventBus; mqtt: MqttTransport; timeZone: string; logger: Logger }): () => void {
  return deps.events.on('alertChanged', async (event) => {
    try {
      await deps.mqtt.publish(alertsTopic(event.organizationId), JSON.stringify(alertEventPayload(event, deps.timeZone)), 1);
    } catch (error) {
      deps.logger.warn({ reason: String(error), tuid: event.tuid }, 'alert feed publish failed');
    }
  });
}
