import type { CommandDownlink } from '../domain/commands/command-downlink.js';
import type { MqttTransport } from '../mqtt/mqtt-transport.js';
import { downlinkTopic } from '../mqtt/topics.js';

/**
 * How long a delivery waits for the broker to take the downlink. An external broker that is unreachable would
 * otherwise hold the request until it reconnects.
 */
export const publishTimeoutMs = 10_000;

/** Commands go out as one JSON array with QoS 1 on the thing's downlink topic (SPEC section 5). */
export function mqttCommandDownlink(mqtt: Pick<MqttTransport, 'publish'>): CommandDownlink {
  return {
    deliver: (thing, commands) =>
      withTimeout(mqtt.publish(downlinkTopic(thing.organizationId, thing.tuid), JSON.stringify(commands), 1), publishTimeoutMs),
  };
}

function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the broker within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
