import { closeMqttClients, connectMqtt } from './mqtt-clients.js';
import { testBootstrap, type TestApp } from './test-app.js';

/**
 * Publishes uplink messages through the test app's embedded broker with the bootstrap gateway credential, as a
 * gateway would, and resolves once they are committed (the broker acknowledges QoS 1 after the commit).
 */
export async function publishUplinks(server: TestApp, messages: readonly Record<string, unknown>[], gatewayTuid = 'GW-1', organizationId = 'acme'): Promise<void> {
  const client = await connectMqtt(server.mqttUrl, { username: testBootstrap.BOOTSTRAP_MQTT_USERNAME, password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD });
  try {
    await client.publishAsync(`thingdesk/${organizationId}/up/${gatewayTuid}`, JSON.stringify(messages), { qos: 1 });
  } finally {
    await client.endAsync();
  }
}

export { closeMqttClients };
