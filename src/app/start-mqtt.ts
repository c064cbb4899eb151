import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';
import { redactUrl } from '../config/parsers.js';
import { authenticateMqttCredential, isMqttCredentialActive, type IdentityDeps } from '../domain/identity/identity-service.js';
import type { IngestService } from '../ingest/ingest-service.js';
import { EmbeddedBroker } from '../mqtt/embedded-broker.js';
import { ExternalBroker } from '../mqtt/external-broker.js';
import type { MqttTransport, UplinkHandler } from '../mqtt/mqtt-transport.js';
import type { AuthThrottleLimits } from '../mqtt/auth-throttle.js';
import type { Logger } from '../observability/logger.js';

/** The MQTT authentication throttle's limits, the same for the embedded broker and MQTT_AUTH=http's routes. */
export function mqttAuthFailuresOf(config: Config): AuthThrottleLimits {
  return { perUsername: config.mqttAuthFailuresPerUsername, perAddress: config.mqttAuthFailuresPerAddress, windowMs: 60_000 };
}

/**
 * Starts the platform's MQTT side: the embedded broker when MQTT_URL is unset, else a client of the external
 * broker. Either way uplinks go to the ingest pipeline and are acknowledged after commit. Start-up failures name
 * the variable to change (MQTT_PORT or MQTT_URL).
 */
export async function startMqtt(
  deps: IdentityDeps & { config: Config; logger: Logger; ingest: IngestService; instanceId: string; isStarting: () => boolean },
): Promise<MqttTransport> {
  const { config, logger, ingest } = deps;
  const onUplink: UplinkHandler = (delivery) =>
    ingest.ingest(delivery.payload, {
      organizationId: delivery.organizationId,
      gatewayTuid: delivery.gatewayTuid,
      source: delivery.topic,
      client: delivery.username,
      receivedAt: deps.clock.now(),
    });
  if (config.mqttUrl === undefined) {
    const broker = new EmbeddedBroker({
      port: config.mqttPort,
      host: config.host,
      receiveMaximum: config.mqttReceiveMaximum,
      maxPacketSize: config.mqttMaxPacketSize,
      connectTimeoutMs: config.mqttConnectTimeoutS * 1000,
      credentialRecheckMs: config.mqttCredentialRecheckS * 1000,
      authFailures: mqttAuthFailuresOf(config),
      now: () => deps.clock.now(),
      feedTemplate: config.integrationTopic,
      logger,
      authenticate: (username, password) => authenticateMqttCredential(deps, username, password),
      isStarting: deps.isStarting,
      isCredentialActive: (username) => isMqttCredentialActive(deps, username),
      onUplink,
    });
    deps.events?.onAnyInstance('mqttCredentialRevoked', ({ username }) => broker.disconnectCredential(username));
    try {
      await broker.start();
    } catch (error) {
      await broker.stop().catch(() => undefined);
      const code = (error as { code?: string }).code;
      if (code === 'EADDRINUSE')
        throw new ConfigError('MQTT_PORT', `port ${config.mqttPort} is already in use (another broker?); set MQTT_PORT or MQTT_URL`);
      throw new ConfigError('MQTT_PORT', `the embedded broker cannot listen: ${(error as Error).message}`);
    }
    return broker;
  }
  const client = new ExternalBroker({
    url: config.mqttUrl,
    instanceId: deps.instanceId,
    slots: config.mqttConsumerSlots,
    receiveMaximum: config.mqttConsumerReceiveMaximum,
    maxPacketSize: config.mqttMaxPacketSize,
    sharedGroup: config.mqttSharedGroup,
    leases: deps.store.leases,
    now: () => deps.clock.now(),
    logger,
    onUplink,
  });
  try {
    await client.start();
  } catch (error) {
    await client.stop().catch(() => undefined);
    throw new ConfigError('MQTT_URL', `cannot connect to ${redactUrl(config.mqttUrl)}: ${(error as Error).message}`);
  }
  return client;
}
