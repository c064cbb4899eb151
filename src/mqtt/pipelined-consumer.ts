import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import mqttPacket, { type IConnackPacket, type IPublishPacket, type ISubackPacket, type Packet } from 'mqtt-packet';
import { connackFindings, subackFinding } from './broker-limits.js';
import type { Logger } from '../observability/logger.js';

export interface PipelinedConsumerOptions {
  /** mqtt:// or mqtts:// URL of the broker, with the credentials in it if the broker asks for them. */
  url: string;
  clientId: string;
  /** How long the broker keeps the session (and the messages assigned to it) after the connection ends. */
  sessionExpiryS: number;
  /** Messages the broker may have unacknowledged on this connection (MQTT 5 Receive Maximum). */
  receiveMaximum: number;
  /** Largest packet the broker may send (MQTT 5 Maximum Packet Size): a larger message is dropped by the broker. */
  maxPacketSize: number;
  /** The one subscription of the session (QoS 1), e.g. `$share/thingdesk/thingdesk/+/up/+`. */
  subscription: string;
  /** Stores one message; its PUBACK goes out only after this resolves. A rejection drops the connection. */
  onMessage(topic: string, payload: Buffer): Promise<void>;
  logger: Logger;
  /** Pause before reconnecting after a lost connection. */
  reconnectMs?: number;
}

const keepaliveS = 30;

interface Delivery {
  messageId: number;
  receivedAt: number;
  committed: boolean;
}

/**
 * One consumer session on an external broker, at the packet level (mqtt-packet, the parser mqtt.js uses). mqtt.js
 * hands a connection's messages over one at a time, each waiting for the previous acknowledgement, which limits a
 * consumer to one commit per round trip; this consumer takes up to `receiveMaximum` messages at once, so the
 * ingest pipeline batches them, and acknowledges each only after its commit, in the order received (MQTT-4.6.0-2).
 * A message whose commit fails is never acknowledged: the connection is dropped and the broker delivers it again
 * from the persistent session. The session's messages are handled from the first packet after CONNACK, so nothing
 * the broker had queued is acknowledged unseen. The Receive Maximum is also enforced here, by reading no further
 * while it is reached: Mosquitto 2.0 was seen sending a shared subscription's backlog far past it, and what the
 * platform holds in memory must not depend on the broker keeping to the protocol.
 */
export class PipelinedConsumer {
  private socket: Socket | undefined;
  private deliveries: Delivery[] = [];
  private stopping = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private lastPacketAt = 0;
  /** Not reading the socket: as many uplinks in flight as the Receive Maximum allows. */
  private full = false;
  /** The broker's limits are logged at the first connection only: they do not change on a reconnect. */
  private limitsChecked = false;
  private subscribed: { resolve(): void; reject(error: Error): void } | undefined;
  private readonly running = new Set<Promise<void>>();
  /** Subscribed and reading. */
  ready = false;

  constructor(private readonly options: PipelinedConsumerOptions) {}

  /** Messages received and not yet acknowledged. */
  get inFlight(): number {
    return this.deliveries.length;
  }

  /** Milliseconds the oldest unacknowledged message has waited (0 when none). */
  lagMs(now = Date.now()): number {
    return this.deliveries.length === 0 ? 0 : now - this.deliveries[0]!.receivedAt;
  }

  /** Connects and subscribes; rejects when the first attempt fails. Later losses reconnect by themselves. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.subscribed = { resolve, reject };
      this.open();
    });
  }

  /**
   * Stops taking messages, waits for those in flight to commit and be acknowledged, then disconnects keeping the
   * session (another consumer of the same client id picks up whatever the broker queues for it meanwhile).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.reconnectTimer);
    this.socket?.pause();
    await Promise.allSettled([...this.running]);
    this.flushAcknowledgements();
    const socket = this.socket;
    if (socket && !socket.destroyed) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.end(mqttPacket.generate({ cmd: 'disconnect', reasonCode: 0 }, { protocolVersion: 5 }));
        setTimeout(() => socket.destroy(), 2000).unref();
      });
    }
    this.closeTimers();
  }

  private open(): void {
    const url = new URL(this.options.url);
    const secure = url.protocol === 'mqtts:';
    const port = Number(url.port || (secure ? 8883 : 1883));
    const host = url.hostname;
    const socket = secure ? tlsConnect({ host, port, servername: host }) : netConnect({ host, port });
    socket.setNoDelay(true);
    this.socket = socket;
    const parser = mqttPacket.parser({ protocolVersion: 5 });
    parser.on('packet', (packet: Packet) => this.handle(packet));
    parser.on('error', (error: Error) => this.drop(`unreadable packet from the broker: ${error.message}`));
    socket.on('data', (chunk: Buffer) => {
      this.lastPacketAt = Date.now();
      parser.parse(chunk);
    });
    socket.on('error', (error) =>
      this.options.logger.warn({ err: error.message, clientId: this.options.clientId }, 'MQTT consumer connection error'),
    );
    socket.on('close', () => this.closed(socket));
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      this.lastPacketAt = Date.now();
      this.write({
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 5,
        clientId: this.options.clientId,
        clean: false,
        keepalive: keepaliveS,
        username: url.username ? decodeURIComponent(url.username) : undefined,
        password: url.password ? Buffer.from(decodeURIComponent(url.password)) : undefined,
        properties: {
          sessionExpiryInterval: this.options.sessionExpiryS,
          receiveMaximum: this.options.receiveMaximum,
          maximumPacketSize: this.options.maxPacketSize,
        },
      });
    });
  }

  private handle(packet: Packet): void {
    switch (packet.cmd) {
      case 'connack':
        return this.connacked(packet);
      case 'suback':
        return this.subacked(packet);
      case 'publish':
        return this.received(packet);
      case 'disconnect':
        return this.drop(`the broker disconnected (reason ${packet.reasonCode ?? 0})`);
      default:
        return;
    }
  }

  private connacked(packet: IConnackPacket): void {
    const code = packet.reasonCode ?? packet.returnCode ?? 0;
    if (code !== 0) return this.refused(new Error(`the broker refused the consumer ${this.options.clientId} (CONNACK ${code})`));
    if (!this.limitsChecked) {
      for (const finding of connackFindings(packet.properties, this.options.sessionExpiryS)) this.warnLimit(finding);
    }
    // Subscribing again on a resumed session is harmless and covers a session the broker lost.
    this.write({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: this.options.subscription, qos: 1 }] });
    this.pingTimer = setInterval(() => this.keepAlive(), (keepaliveS * 1000) / 2);
    this.pingTimer.unref();
  }

  private subacked(packet: ISubackPacket): void {
    const granted = packet.granted[0];
    const finding = subackFinding(typeof granted === 'number' ? granted : undefined);
    // Connected but never sent an uplink: fail the start (the slot is tried again) rather than look ready.
    if (finding !== undefined && typeof granted === 'number' && granted >= 0x80)
      return this.refused(new Error(`${this.options.clientId}: ${finding}`));
    if (finding !== undefined && !this.limitsChecked) this.warnLimit(finding);
    this.limitsChecked = true;
    this.ready = true;
    this.subscribed?.resolve();
    this.subscribed = undefined;
  }

  /**
   * A refusal during start() fails the start and ends this consumer (the caller decides whether to try again with
   * another); a refusal on a later reconnect only drops the connection, and the next attempt follows.
   */
  private refused(error: Error): void {
    if (this.subscribed) {
      this.subscribed.reject(error);
      this.subscribed = undefined;
      this.stopping = true;
      clearTimeout(this.reconnectTimer);
    }
    this.drop(error.message);
  }

  private warnLimit(finding: string): void {
    this.options.logger.warn({ clientId: this.options.clientId, finding }, 'external broker setting loses uplinks');
  }

  private received(packet: IPublishPacket): void {
    const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
    const delivery: Delivery | undefined =
      packet.qos > 0 ? { messageId: packet.messageId!, receivedAt: Date.now(), committed: false } : undefined;
    if (delivery) this.deliveries.push(delivery);
    const socket = this.socket;
    if (this.deliveries.length >= this.options.receiveMaximum && socket && !this.full) {
      this.full = true;
      socket.pause();
    }
    const work = this.options.onMessage(packet.topic, payload).then(
      () => {
        if (!delivery || socket !== this.socket) return;
        delivery.committed = true;
        this.flushAcknowledgements();
      },
      (error: unknown) => {
        this.options.logger.error(
          { err: error, topic: packet.topic },
          'uplink not committed; reconnecting so the broker delivers it again',
        );
        if (socket === this.socket) this.drop('an uplink could not be committed');
      },
    );
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
  }

  /** PUBACKs for the committed messages at the head of the line, in the order they were received. */
  private flushAcknowledgements(): void {
    while (this.deliveries.length > 0 && this.deliveries[0]!.committed) {
      const { messageId } = this.deliveries.shift()!;
      this.write({ cmd: 'puback', messageId, reasonCode: 0 });
    }
    if (this.full && this.deliveries.length < this.options.receiveMaximum && !this.stopping) {
      this.full = false;
      this.socket?.resume();
    }
  }

  private keepAlive(): void {
    // While the socket is not read, the broker's answers wait unread: its silence means nothing then.
    if (this.full) this.lastPacketAt = Date.now();
    if (Date.now() - this.lastPacketAt > keepaliveS * 1500) return this.drop('the broker stopped answering');
    this.write({ cmd: 'pingreq' });
  }

  private write(packet: Packet): void {
    const socket = this.socket;
    if (socket && !socket.destroyed && socket.writable) socket.write(mqttPacket.generate(packet, { protocolVersion: 5 }));
  }

  private drop(reason: string): void {
    this.options.logger.warn({ clientId: this.options.clientId, reason }, 'MQTT consumer connection dropped');
    this.socket?.destroy();
  }

  private closed(socket: Socket): void {
    if (socket !== this.socket) return;
    this.ready = false;
    this.closeTimers();
    // Unacknowledged messages stay in the broker's session and come again (as duplicates, which ingest skips).
    this.deliveries = [];
    this.full = false;
    if (this.subscribed) {
      this.subscribed.reject(new Error(`could not connect the consumer ${this.options.clientId} to ${new URL(this.options.url).host}`));
      this.subscribed = undefined;
      return;
    }
    if (this.stopping) return;
    this.reconnectTimer = setTimeout(() => this.open(), this.options.reconnectMs ?? 1000);
    this.reconnectTimer.unref();
  }

  private closeTimers(): void {
    clearInterval(this.pingTimer);
    this.pingTimer = undefined;
  }
}
