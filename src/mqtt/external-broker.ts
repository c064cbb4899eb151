import { connectAsync, type MqttClient } from 'mqtt';
import type { Logger } from '../observability/logger.js';
import type { LeasesStore } from '../store/leases-store.js';
import { ConsumerSlots, type SlotConsumer } from './consumer-slots.js';
import type { MqttTransport, UplinkHandler } from './mqtt-transport.js';
import { PipelinedConsumer } from './pipelined-consumer.js';
import { allUplinksFilter, parseUplinkTopic } from './topics.js';

export interface ExternalBrokerOptions {
  url: string;
  /** This process, unique in the deployment: its publisher's client id and its name in the slot leases. */
  instanceId: string;
  /** Consumer sessions of the whole deployment, shared by its instances (MQTT_CONSUMER_SLOTS). */
  slots: number;
  /** Uplinks one consumer session may have unacknowledged (MQTT 5 Receive Maximum it announces). */
  receiveMaximum: number;
  /** Largest uplink packet taken (MQTT_MAX_PACKET_SIZE), announced so the broker never sends a larger one. */
  maxPacketSize: number;
  /** The shared subscription group; every instance of one deployment uses the same. */
  sharedGroup: string;
  leases: Pick<LeasesStore, 'acquire' | 'release' | 'listLive'>;
  now: () => number;
  logger: Logger;
  onUplink: UplinkHandler;
}

// A day: a slot whose consumers all stopped keeps what arrives for it this long, for the next one to take.
const sessionExpiryS = 86_400;
const slotLeaseTtlMs = 10_000;
const slotScanMs = 2_000;

/** The consumer side's figures, for /metrics. */
export interface ConsumerStats {
  slotsHeld: number;
  /** The slot numbers this instance runs. */
  slots: number[];
  inFlight: number;
  /** Age of the oldest uplink received and not yet acknowledged, over all consumers (milliseconds). */
  lagMs: number;
}

/**
 * The platform as a client of an external broker (Mosquitto, EMQX, ...). Uplinks arrive through
 * `$share/{MQTT_SHARED_GROUP}/thingdesk/+/up/+` on the deployment's persistent MQTT 5 consumer sessions, one per
 * slot (consumer-slots.ts), each read by a pipelined consumer that keeps many uplinks in flight and acknowledges
 * each only after its commit (pipelined-consumer.ts). A separate clean connection publishes downlinks, the data
 * feed and alerts. docs/mqtt.md describes the failure cases and the broker settings that lose nothing.
 */
export class ExternalBroker implements MqttTransport {
  readonly mode = 'external';
  readonly port = undefined;
  private publisher: MqttClient | undefined;
  private readonly consumers = new Set<PipelinedConsumer>();
  private readonly slots: ConsumerSlots;
  private readonly instanceId: string;

  constructor(private readonly options: ExternalBrokerOptions) {
    this.instanceId = options.instanceId;
    this.slots = new ConsumerSlots({
      slots: options.slots,
      group: options.sharedGroup,
      instanceId: this.instanceId,
      leases: options.leases,
      now: options.now,
      leaseTtlMs: slotLeaseTtlMs,
      scanMs: slotScanMs,
      startConsumer: (slot) => this.startConsumer(slot),
      logger: options.logger,
    });
  }

  async start(): Promise<void> {
    this.publisher = await this.connectPublisher();
    await this.slots.start();
  }

  async stop(): Promise<void> {
    // Consumers first, drained: their last acknowledgements go out before the connections close.
    await this.slots.stop();
    const publisher = this.publisher;
    this.publisher = undefined;
    await publisher?.endAsync(false);
  }

  async publish(topic: string, payload: string | Buffer, qos: 0 | 1): Promise<void> {
    if (!this.publisher) throw new Error('not connected to the external broker');
    await this.publisher.publishAsync(topic, payload, { qos });
  }

  async ping(): Promise<void> {
    if (!this.publisher?.connected || [...this.consumers].some((c) => !c.ready)) throw new Error('not connected to the external broker');
  }

  consumerStats(now = Date.now()): ConsumerStats {
    let inFlight = 0;
    let lagMs = 0;
    for (const consumer of this.consumers) {
      inFlight += consumer.inFlight;
      lagMs = Math.max(lagMs, consumer.lagMs(now));
    }
    return { slotsHeld: this.slots.heldSlots.length, slots: this.slots.heldSlots, inFlight, lagMs };
  }

  /** The client id of a slot's session: the deployment's group and the slot number, never a host name. */
  static slotClientId(sharedGroup: string, slot: number): string {
    return `${sharedGroup}-slot-${slot}`;
  }

  private async startConsumer(slot: number): Promise<SlotConsumer> {
    const { logger, onUplink } = this.options;
    const consumer = new PipelinedConsumer({
      url: this.options.url,
      clientId: ExternalBroker.slotClientId(this.options.sharedGroup, slot),
      sessionExpiryS,
      receiveMaximum: this.options.receiveMaximum,
      maxPacketSize: this.options.maxPacketSize,
      // Every instance's consumers join the group; the broker hands each uplink to one member.
      subscription: `$share/${this.options.sharedGroup}/${allUplinksFilter}`,
      logger,
      onMessage: async (topicName, payload) => {
        const topic = parseUplinkTopic(topicName);
        if (!topic) return;
        await onUplink({ topic: topicName, organizationId: topic.organizationId, gatewayTuid: topic.gatewayTuid, payload, username: null });
      },
    });
    await consumer.start();
    this.consumers.add(consumer);
    return {
      stop: async () => {
        await consumer.stop();
        this.consumers.delete(consumer);
      },
    };
  }

  private async connectPublisher(): Promise<MqttClient> {
    const client = await connectAsync(this.options.url, {
      clientId: `${this.instanceId}-pub`,
      protocolVersion: 5,
      clean: true,
      reconnectPeriod: 1000,
      connectTimeout: 10_000,
    });
    client.on('error', (error) => this.options.logger.warn({ err: error.message }, 'external MQTT broker error'));
    return client;
  }
}
