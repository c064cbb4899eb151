import { createMqttCredential } from '../../../src/domain/identity/identity-service.js';
import { collectMessages, connectMqtt } from '../../helpers/mqtt-clients.js';
import type { RestClient } from '../../helpers/rest-client.js';
import type { TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';

export const minute = 60_000;

/** Environment of an engine test: the timer never fires by itself, tests run `evaluateSilence()` by hand. */
export const manualEngineEnv = { GATEWAY_TIMEOUT_S: '600', DEVICE_TIMEOUT_S: '3600', ALERT_INTERVAL_S: '2000000' } as const;

/** A UTC instant as the alert record shows it with ALERT_TIMEZONE=UTC. */
export function utc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/**
 * Sends one message from each thing through a gateway. `tsmTs` is deliberately far in the past: silence is
 * measured on the platform's clock at arrival, never by the device's time. Resolves when the engine has seen them.
 */
export async function hear(server: TestApp, gatewayTuid: string, tuids: string[]): Promise<void> {
  // A distinct uptime each time: an identical message would be a redelivered duplicate, which is not stored.
  await publishUplinks(
    server,
    tuids.map((tuid) => ({ tsmId: 1112, tsmEv: 10, tsmTs: 1_000_000, tsmTuid: tuid, uptime: (sequence += 1) })),
    gatewayTuid,
  );
  await server.app.alertEngine.settled();
}

let sequence = 0;

export type Periods = Record<string, { from: string; to: string | null }[]>;

/** A thing's alert periods over all time, by type, read over REST as a client would. */
export async function periodsOf(rest: RestClient, tuid: string): Promise<Periods> {
  const response = await rest.get(`/things/${tuid}/alerts?from=0&to=4102444800`);
  if (response.status !== 200) throw new Error(`alerts of ${tuid}: ${response.status} ${response.text}`);
  return Object.fromEntries((response.body.data as { alert_type: string; alerts: Periods[string] }[]).map((r) => [r.alert_type, r.alerts]));
}

/** Subscribes an integration credential of `acme` to its alerts topic and collects what arrives. */
export async function subscribeAlerts(server: TestApp) {
  const username = `feed-${Math.random().toString(16).slice(2, 10)}`;
  await createMqttCredential(
    { store: server.app.store, clock: server.app.clock },
    { organizationId: 'acme', kind: 'integration', username, password: 'feed-password-0123' },
  );
  const client = await connectMqtt(server.mqttUrl, { username, password: 'feed-password-0123' });
  await client.subscribeAsync('thingdesk/acme/alerts', { qos: 1 });
  const collected = collectMessages(client);
  return { client, ...collected, payloads: () => collected.received.map((m) => JSON.parse(m.payload) as Record<string, unknown>) };
}
