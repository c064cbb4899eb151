import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import type { Logger } from '../app/logger.js';
import type { MqttTransport, UplinkHandler } from './mqtt-transport.js';
import { allUplinksFilter, parseUplinkTopic } from './topics.js';

export interface ExternalBrokerOptions {
  url: string;
  /** Stable per instance: the broker keeps each consumer's session (and its unacknowledged messages) under it. */
  clientId: string;
  /** Consumer connections in the shared subscription group. */
  consumers: number;
  /** The shared subscription group; every instance of one deployment uses the same. */
  sharedGroup: string;
  logger: Logger;
  onUplink: UplinkHandler;
}

// A day: an instance that restarts within it gets the messages that arrived for its session meanwhile.
const sessionExpiryS = 86_400;

/**
 * The platform as a client of an external broker (Mosquitto, EMQX, ...). Uplinks arrive through
 * `$share/{MQTT_SHARED_GROUP}/thingdesk/+/up/+` on persistent MQTT 5 sessions, and each is acknowledged only after the
 * ingest pipeline committed it. mqtt.js handles one incoming message at a time per connection (the next waits
 * for the previous acknowledgement), so an instance opens several consumer connections to keep many in flight.
 * A separate connection publishes downlinks, the data feed and alerts.
 */
export class ExternalBroker implements MqttTransport {
  readonly mode = 'external';
  readonly port = undefined;
  private consumers: MqttClient[] = [];
  private publisher: MqttClient | undefined;

  constructor(private readonly options: ExternalBrokerOptions) {}

  async start(): Promise<void> {
    this.publisher = await connectAsync(this.options.url, this.clientOptions(`${this.options.clientId}-pub`, true));
    for (let i = 0; i < this.options.consumers; i++) {
      const consumer = await connectAsync(this.options.url, this.clientOptions(`${this.options.clientId}-c${i}`, false));
      this.attachConsumer(consumer);
      // Every instance joins the group; the broker hands each uplink to one member (MQTT 5 shared subscription).
      await consumer.subscribeAsync(`$share/${this.options.sharedGroup}/${allUplinksFilter}`, { qos: 1 });
      this.consumers.push(consumer);
    }
  }

  async stop(): Promise<void> {
    const clients = [...this.consumers, ...(this.publisher ? [this.publisher] : [])];
    this.consumers = [];
    this.publisher = undefined;
    // Not forced: in-flight handlers finish and their acknowledgements go out before the connection closes.
    await Promise.all(clients.map((client) => client.endAsync(false)));
  }

  async publish(topic: string, payload: string | Buffer, qos: 0 | 1): Promise<void> {
    if (!this.publisher) throw new Error('not connected to the external broker');
    await this.publisher.publishAsync(topic, payload, { qos });
  }

  async ping(): Promise<void> {
    if (!this.publisher?.connected || this.consumers.some((c) => !c.connected)) throw new Error('not connected to the external broker');
  }

  private clientOptions(clientId: string, clean: boolean): IClientOptions {
    return {
      clientId,
      protocolVersion: 5,
      clean,
      properties: clean ? {} : { sessionExpiryInterval: sessionExpiryS },
      reconnectPeriod: 1000,
      connectTimeout: 10_000,
    };
  }

  private attachConsumer(consumer: MqttClient): void {
    const { logger, onUplink } = this.options;
    // handleMessage is mqtt.js's hook that runs before the PUBACK: the acknowledgement waits for our callback.
    consumer.handleMessage = (packet, callback) => {
      const topic = parseUplinkTopic(packet.topic);
      if (packet.cmd !== 'publish' || !topic) return callback();
      const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
      onUplink({ topic: packet.topic, organizationId: topic.organizationId, gatewayTuid: topic.gatewayTuid, payload, username: null }).then(
        () => callback(),
        (error: unknown) => {
          logger.error({ err: error, topic: packet.topic }, 'uplink not committed; reconnecting so the broker delivers it again');
          // No acknowledgement: dropping the connection makes the broker redeliver from the session.
          consumer.stream?.destroy();
          callback(error instanceof Error ? error : new Error(String(error)));
        },
      );
    };
    consumer.on('error', (error) => logger.warn({ err: error.message }, 'external MQTT broker error'));
  }
}
