import { connect, type MqttClient, type Packet } from 'mqtt';
import type { DomainEventBus } from '../domain/events.js';
import type { StoredMessage } from '../domain/messages/message-types.js';
import { clusterMessagesFilter, clusterMessagesTopic } from '../mqtt/topics.js';
import type { Logger } from '../observability/logger.js';
import { decodeBatch, encodeBatches } from './relay-batch.js';
import { RelayOrigins } from './relay-origins.js';
import { StoredOrderBuffer } from './stored-order.js';

/**
 * With an external broker, several instances share the uplinks (one shared subscription), so each stores a part
 * of them; a live `messages` subscription on one instance must still see them all. Each instance publishes what it
 * committed, one MQTT message per batch, on its own relay topic, and re-emits what the others published as relayed
 * (`DomainEventBus.emitRelayed`: live streams hear it; the data feed, alerts and answer matching, which already ran
 * where the batch was stored, do not). The broker does the fan-out it is built for, at one publish per batch rather
 * than one per message; PostgreSQL NOTIFY (cluster-events.ts) was weighed and set aside for this (docs/decisions.md).
 *
 * Exactly once: the subscription asks the broker not to send an instance its own publishes (MQTT 5 No Local) and
 * the origin is checked besides. While this link is down, other instances' uplinks are missed: `relayLinkChanged`
 * tells the live streams, which end their connections and refuse new subscriptions until it is back
 * (live-streams.ts), so a client never mistakes a partial stream for the whole one.
 *
 * In stored order per thing: two instances may store consecutive messages of one thing, and their batches reach a
 * third in either order. Each message carries its thing's sequence number (`StoredMessage.seq`), and this
 * instance's batches and the relayed ones pass through one order buffer (stored-order.ts) on their way to live
 * streams, which holds a message until its predecessor has gone out, or at most `storedOrderWaitMs`.
 *
 * What a batch may cost the deployment (issue 32): it is split to the broker's Maximum Packet Size (announced in
 * its CONNACK, or `maxPacketBytes` for a broker that announces none), since a broker disconnects a client that
 * publishes more and mqtt.js would resend the same publish on every reconnection, for ever; a message too large for
 * any packet is not relayed, and a publish that was in flight when the connection was lost twice is given up. The
 * other instances skip what is missing as a gap (stored-order.ts). And what a batch may claim: it is signed with the
 * deployment's key (relay-batch.ts), its origin must be the instance its topic names and live in the register
 * (relay-origins.ts), and sent within `maxBatchAgeMs`; anything else is refused, counted and never reaches a stream.
 */
export class MessageRelay {
  private client: MqttClient | undefined;
  private up = false;
  private readonly stopListening: () => void;
  private readonly order: StoredOrderBuffer;
  private readonly unstage: () => void;
  private readonly origins: RelayOrigins;
  private readonly topic: string;
  /** Relay publishes (by packet id) in flight when a connection was lost, and how many times that happened. */
  private readonly lostWith = new Map<number, number>();
  /** Counters for /metrics and tests: messages not relayed, batches refused. */
  readonly counts = { unsent: 0, refused: 0 };
  private lastRefusalLog = 0;
  /** The Maximum Packet Size of the broker's last CONNACK; undefined: none announced. */
  private announcedMaxPacketBytes: number | undefined;

  constructor(
    private readonly deps: {
      url: string;
      instanceId: string;
      events: DomainEventBus;
      logger: Logger;
      /** The deployment's relay key (32 bytes), the same on every instance. */
      key: Buffer;
      /** The ids of the instances live in the register now. */
      liveInstanceIds: () => Promise<readonly string[]>;
      /** The largest packet when the broker announces no Maximum Packet Size. */
      maxPacketBytes: number;
      /** Live messages the order buffer may hold. */
      maxHeld: number;
    },
  ) {
    this.topic = clusterMessagesTopic(deps.instanceId);
    this.stopListening = deps.events.on('messagesStored', ({ messages }) => this.send(messages));
    // Local and relayed batches meet here, before live streams: each thing's messages go on in stored order.
    const { events } = deps;
    const staged = events.stageAnyInstance('messagesStored', {
      pass: ({ messages }) => (events.hasRelayListeners('messagesStored') ? this.order.push(messages) : undefined),
      listenersChanged: (count) => this.order.listening(count > 0),
    });
    this.order = new StoredOrderBuffer({ deliver: (messages) => staged.deliver({ messages }), maxHeld: deps.maxHeld });
    this.order.listening(events.hasRelayListeners('messagesStored'));
    this.unstage = staged.remove;
    this.origins = new RelayOrigins({
      liveInstanceIds: deps.liveInstanceIds,
      onRefused: (origin) => this.refused(origin, 'not a live instance'),
      onReadFailed: (error) => deps.logger.warn({ err: (error as Error).message }, 'message relay: cannot read the instance register'),
    });
  }

  /** Gaps skipped by the order buffer (lost or unsent predecessors), and messages it holds. */
  get orderCounts(): { gaps_skipped: number; held: number } {
    return { gaps_skipped: this.order.counts.skipped, held: this.order.size.held };
  }

  async start(): Promise<void> {
    await this.origins.start();
    const client = connect(this.deps.url, {
      clientId: `${this.deps.instanceId}-relay`,
      protocolVersion: 5,
      clean: true,
      reconnectPeriod: 1000,
      connectTimeout: 10_000,
    });
    // Read from the CONNACK as it arrives: mqtt.js emits `connect` only once the publishes it resends are
    // acknowledged, which a broker that disconnects over one of them never does.
    let connected = false;
    client.on('packetreceive', (packet: Packet) => {
      if (packet.cmd === 'connack') {
        connected = true;
        // Each CONNACK may announce another limit (a broker reconfigured and restarted): the latest one holds.
        this.announcedMaxPacketBytes = packet.properties?.maximumPacketSize;
      } else if (packet.cmd === 'puback' && packet.messageId !== undefined) this.lostWith.delete(packet.messageId);
    });
    await new Promise<void>((resolve, reject) => {
      const failed = (error: Error) => {
        client.end(true);
        reject(error);
      };
      client.once('error', failed);
      client.once('connect', () => {
        client.off('error', failed);
        resolve();
      });
    });
    this.client = client;
    client.on('message', (topic, payload) => this.received(topic, payload));
    client.on('error', (error) => this.deps.logger.warn({ err: error.message }, 'message relay: broker error'));
    client.on('close', () => {
      // Only a connection the broker accepted counts: a reconnection that failed never sent anything.
      if (connected) this.giveUpResent(client);
      connected = false;
      this.changed(false);
    });
    // Every reconnection subscribes again: the session is clean, so the broker forgot the subscription. A refusal
    // then is logged and leaves the link down (streams refused); only the first one fails the start.
    client.on('connect', () => void this.subscribe(client).catch(() => undefined));
    await this.subscribe(client);
  }

  async stop(): Promise<void> {
    this.stopListening();
    this.unstage();
    this.order.close();
    this.origins.stop();
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    // What is in flight is given a moment to be acknowledged, never more: a broker that is gone, or that refuses
    // what is in flight, must not hold the stop.
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      client.endAsync(false).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), stopGraceMs))),
    ]);
    clearTimeout(timer);
    if (!ended) await client.endAsync(true);
  }

  private async subscribe(client: MqttClient): Promise<void> {
    try {
      const granted = await client.subscribeAsync(clusterMessagesFilter, { qos: 1, nl: true });
      if (granted.some((grant) => grant.qos > 2)) throw new Error(`the broker refused ${clusterMessagesFilter}`);
      this.changed(true);
    } catch (error) {
      this.deps.logger.error({ err: (error as Error).message }, 'message relay: cannot subscribe; live streams miss other instances');
      throw error;
    }
  }

  private changed(up: boolean): void {
    if (this.client === undefined || up === this.up) return;
    this.up = up;
    if (up) {
      // Batches relayed while the link was down are lost to this instance: no message waits for one committed before now.
      this.order.listening(false);
      this.order.listening(this.deps.events.hasRelayListeners('messagesStored'));
      this.deps.logger.info('message relay: link to the other instances is up');
    } else this.deps.logger.warn("message relay: link lost; other instances' uplinks are missed until it is back");
    this.deps.events.emit('relayLinkChanged', { link: 'broker', up });
  }

  /**
   * mqtt.js sends a QoS 1 publish again on each reconnection until it is acknowledged. A broker that disconnects
   * over a publish (too large, not allowed) would get it back after every CONNACK, before the relay even subscribes
   * again, and the link would never stay up: a publish in flight when two accepted connections were lost is given
   * up (its callback fails: counted as unsent).
   */
  private giveUpResent(client: MqttClient): void {
    for (const [id, entry] of Object.entries(client.outgoing)) {
      if (entry.cmd !== 'publish') continue;
      const messageId = Number(id);
      const lost = (this.lostWith.get(messageId) ?? 0) + 1;
      if (lost < 2) this.lostWith.set(messageId, lost);
      else {
        this.lostWith.delete(messageId);
        client.removeOutgoingMessage(messageId);
      }
    }
  }

  private send(messages: readonly StoredMessage[]): void {
    const client = this.client;
    // Also while the link is down: mqtt.js keeps QoS 1 publishes and sends them on reconnection, so the others get
    // them late rather than never (if within `maxBatchAgeMs`; a thing's later messages do not wait for them).
    if (!client) return;
    const maxPacketBytes = Math.min(this.announcedMaxPacketBytes ?? Infinity, this.deps.maxPacketBytes);
    const { payloads, unsent } = encodeBatches(
      this.deps.key,
      this.topic,
      { origin: this.deps.instanceId, sentAt: Date.now() },
      messages,
      maxPacketBytes,
    );
    if (unsent.length > 0) {
      this.counts.unsent += unsent.length;
      this.deps.logger.warn(
        { messages: unsent.length, maxPacketBytes, tuids: [...new Set(unsent.map((m) => m.tuid))].slice(0, 10) },
        "message relay: messages larger than the broker's packet limit not relayed; other instances' live streams skip them",
      );
    }
    for (const payload of payloads) {
      client.publishAsync(this.topic, payload.bytes, { qos: 1 }).catch((error: unknown) => {
        this.counts.unsent += payload.messages;
        this.deps.logger.warn(
          { err: (error as Error).message, messages: payload.messages, bytes: payload.bytes.length },
          'message relay: batch not relayed; the other instances skip it as a gap',
        );
      });
    }
  }

  private received(topic: string, payload: Buffer): void {
    // Nothing here follows live messages now (no subscription): the batch need not even be read.
    if (!this.deps.events.hasRelayListeners('messagesStored')) return;
    const origin = topic.slice(clusterMessagesFilter.length - 1);
    if (origin === this.deps.instanceId) return;
    const batch = decodeBatch(this.deps.key, topic, payload);
    if ('refused' in batch) return this.refused(origin, batch.refused);
    // The signature covers the topic; the batch must also say it is from the instance the topic names.
    if (batch.origin !== origin) return this.refused(origin, 'origin is not the topic');
    if (Math.abs(Date.now() - batch.sentAt) > maxBatchAgeMs) return this.refused(origin, 'too old');
    this.origins.admit(origin, () => this.deps.events.emitRelayed('messagesStored', { messages: batch.messages }));
  }

  private refused(origin: string, reason: string): void {
    this.counts.refused += 1;
    // Logged at most every 10 s: whoever forges batches must not also fill the log.
    const now = Date.now();
    if (now - this.lastRefusalLog < 10_000) return;
    this.lastRefusalLog = now;
    this.deps.logger.warn({ origin: origin.slice(0, 120), reason, refused: this.counts.refused }, 'message relay: batch refused');
  }
}

/** How long a stop waits for the relay's publishes in flight to be acknowledged. */
const stopGraceMs = 5_000;

/** The name of the relay's signing key among the deployment's shared secrets (cluster-secrets-store.ts). */
export const relayKeyName = 'live-relay-hmac';

/**
 * A relayed batch older than this (by its sender's clock; instances are assumed to run NTP, as leases are) is
 * refused: a recording replayed later. mqtt.js resends an unacknowledged batch within seconds of reconnecting.
 */
export const maxBatchAgeMs = 60_000;
