import { closeMqttClients, connectMqtt } from './mqtt-clients.js';
import { testBootstrap, type TestApp } from './test-app.js';

/**
 * Publishes uplink messages through the test app's embedded broker with the bootstrap gateway credential, as a
 * gateway would, and resolves once they are committed (the broker acknowledges QoS 1 after the commit).
 */
export async function publishUplinks(
  server: TestApp,
  messages: readonly Record<string, unknown>[],
  gatewayTuid = 'GW-1',
  organizationId = 'acme',
): Promise<void> {
  const client = await connectMqtt(server.mqttUrl, {
    username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
    password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
  });
  try {
    await client.publishAsync(`thingdesk/${organizationId}/up/${gatewayTuid}`, JSON.stringify(messages), { qos: 1 });
  } finally {
    await client.endAsync();
  }
}

/**
 * The uplinks the thing and message tests of both interfaces read back, from tsmTs `t0` on: T-1 reports each field
 * the summary takes (version, battery twice, location) and a sensor reading; T-2 and X-3 one uptime each.
 */
export function summaryUplinks(t0: number): Record<string, unknown>[] {
  return [
    { tsmId: 1100, tsmEv: 11, tsmTs: t0, tsmTuid: 'T-1', tsmGw: 'GW-1', swVersion: '1.4.2', modelCode: 'ENV', psn: 'P1' },
    { tsmId: 1110, tsmEv: 10, tsmTs: t0 + 10, tsmTuid: 'T-1', tsmGw: 'GW-1', batl: 80.6 },
    { tsmId: 1210, tsmEv: 10, tsmTs: t0 + 20, tsmTuid: 'T-1', tsmGw: 'GW-1', lat: 60.1699, lon: 24.9384, lacr: 10 },
    { tsmId: 12100, tsmEv: 10, tsmTs: t0 + 30, tsmTuid: 'T-1', tsmGw: 'GW-1', temp: 21.5 },
    { tsmId: 1110, tsmEv: 101, tsmTs: t0 + 40, tsmTuid: 'T-1', tsmGw: 'GW-1', batl: 80.4 },
    { tsmId: 1112, tsmEv: 10, tsmTs: t0 + 5, tsmTuid: 'T-2', uptime: 5 },
    { tsmId: 1112, tsmEv: 10, tsmTs: t0 + 5, tsmTuid: 'X-3', uptime: 5 },
  ];
}

export { closeMqttClients };
