/**
 * One virtual gateway: a single MQTT connection that carries its devices' reports up as JSON arrays and their
 * commands down. It sends only when the fleet lets it (allowance and message budget) and keeps at most
 * `maxInFlight` QoS 1 publishes unacknowledged, refilling as acknowledgements arrive: no timer per device.
 */
import type { IConnackPacket, MqttClient } from 'mqtt';
import { downlinkTopic, parseDownlinkTopic, uplinkTopic } from '../mqtt/topics.js';
import { respondToCommands } from './command-responder.js';
import type { LatencyRecorder } from './latency-recorder.js';
import { connectClient, type ProtocolVersion, type QoS } from './mqtt-connection.js';
import type { DeviceUplink, VirtualDevice } from './virtual-device.js';

/** The fleet-wide limit on messages (the `messages` stop condition); unlimited fleets grant everything. */
export interface MessageBudget {
  /** Takes up to `wanted` messages from the budget; returns how many may be sent. */
  claim(wanted: number): number;
  /** Gives back messages claimed but not sent. */
  release(count: number): void;
}

export interface GatewayStats {
  publishes: number;
  publishesAcked: number;
  messagesSent: number;
  messagesAcked: number;
  commandsReceived: number;
  responsesSent: number;
  errors: number;
  inFlight: number;
}

export interface VirtualGatewayOptions {
  url: string;
  username?: string;
  password?: string;
  organizationId: string;
  gatewayTuid: string;
  clientId: string;
  devices: readonly VirtualDevice[];
  qos: QoS;
  protocolVersion: ProtocolVersion;
  /** Messages per publish. */
  batchSize: number;
  /** With batchSize 1, publish the message as a bare object instead of a one-element array. */
  singleObject: boolean;
  maxInFlight: number;
  budget: MessageBudget;
  latencies: LatencyRecorder;
  /** Called after each telemetry publish settles (acknowledged or failed), so the fleet can refill or finish. */
  onSettled(gateway: VirtualGateway): void;
  onError?(error: Error, gatewayTuid: string): void;
}

export class VirtualGateway {
  readonly tuid: string;
  readonly stats: GatewayStats = {
    publishes: 0,
    publishesAcked: 0,
    messagesSent: 0,
    messagesAcked: 0,
    commandsReceived: 0,
    responsesSent: 0,
    errors: 0,
    inFlight: 0,
  };
  /** Messages the gateway may still send under the fleet's pace; Infinity when pacing is by acknowledgements. */
  allowance = 0;
  private client: MqttClient | undefined;
  private stopping = false;
  private readonly topic: string;
  private readonly devicesByTuid: ReadonlyMap<string, VirtualDevice>;
  /** Reports produced but not yet published: a device's report rarely fits a batch exactly. */
  private pending: DeviceUplink[] = [];
  private cursor = 0;
  private inFlightLimit: number;

  constructor(private readonly options: VirtualGatewayOptions) {
    this.tuid = options.gatewayTuid;
    this.topic = uplinkTopic(options.organizationId, options.gatewayTuid);
    this.devicesByTuid = new Map(options.devices.map((device) => [device.tuid, device]));
    this.inFlightLimit = options.maxInFlight;
  }

  /** How many devices report through this gateway (0 when the fleet has fewer devices than gateways). */
  get deviceCount(): number {
    return this.options.devices.length;
  }

  /** Connects and subscribes (QoS 1) to the organization's downlink topics. Rejects when either fails. */
  async start(): Promise<void> {
    const options = this.options;
    const client = await connectClient({
      url: options.url,
      clientId: options.clientId,
      username: options.username,
      password: options.password,
      protocolVersion: options.protocolVersion,
      onConnack: (connack) => this.applyServerLimits(connack),
      onError: (error) => this.reportError(error),
    });
    this.client = client;
    client.on('message', (topic, payload) => this.handleDownlink(topic, payload));
    // A broker drops a gateway it will not serve (a refused publish, a failed commit): count it, so a run that
    // only reconnects and resends shows errors rather than a silent stall.
    client.on('close', () => {
      if (!this.stopping) this.reportError(new Error('the broker closed the connection; reconnecting'));
    });
    try {
      // A gateway credential may subscribe only within its organization's down topics, so one wildcard is the
      // whole subscription; commands for other gateways' devices are dropped on arrival.
      const granted = await client.subscribeAsync(downlinkTopic(options.organizationId, '+'), { qos: 1 });
      if (granted.some((grant) => grant.qos === 128)) throw new Error(`the broker refused the subscription to ${granted[0]?.topic}`);
    } catch (error) {
      await client.endAsync(true);
      throw error;
    }
  }

  /** Publishes while the allowance, the budget and the in-flight limit allow. Safe to call at any time. */
  pump(): void {
    if (this.stopping || this.client === undefined) return;
    while (this.stats.inFlight < this.inFlightLimit && this.allowance >= 1) {
      const batch = this.takeBatch(Math.min(this.options.batchSize, this.allowance));
      if (batch.length === 0) return;
      this.allowance -= batch.length;
      this.publishBatch(this.client, batch);
    }
  }

  /**
   * Stops sending, waits up to `drainTimeoutMs` for the publishes in flight to be acknowledged, then disconnects.
   * Publishes still unacknowledged then are abandoned (counted as sent, not acknowledged).
   */
  async stop(drainTimeoutMs: number): Promise<void> {
    this.stopping = true;
    const client = this.client;
    if (client === undefined) return;
    const deadline = Date.now() + drainTimeoutMs;
    while (this.stats.inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await client.endAsync(this.stats.inFlight > 0);
    this.client = undefined;
  }

  private applyServerLimits(connack: IConnackPacket): void {
    // MQTT 5 forbids more unacknowledged QoS 1/2 publishes than the broker's receive maximum.
    const receiveMaximum = connack.properties?.receiveMaximum;
    this.inFlightLimit = receiveMaximum === undefined ? this.options.maxInFlight : Math.min(this.options.maxInFlight, receiveMaximum);
  }

  /** Up to `wanted` messages from the devices in turn, within the fleet's budget. */
  private takeBatch(wanted: number): DeviceUplink[] {
    const granted = this.options.budget.claim(wanted);
    if (granted === 0) return [];
    const devices = this.options.devices;
    const now = Date.now();
    let silent = 0;
    // One full round of silent devices (asleep, or on their own slower schedule) means nothing more is due now.
    while (this.pending.length < granted && silent < devices.length) {
      const device = devices[this.cursor]!;
      this.cursor = (this.cursor + 1) % devices.length;
      const produced = device.nextMessages(now);
      silent = produced.length === 0 ? silent + 1 : 0;
      for (const message of produced) this.pending.push(message);
    }
    const batch = this.pending.length <= granted ? this.pending : this.pending.slice(0, granted);
    this.pending = batch === this.pending ? [] : this.pending.slice(granted);
    if (batch.length < granted) this.options.budget.release(granted - batch.length);
    return batch;
  }

  private publishBatch(client: MqttClient, batch: readonly DeviceUplink[]): void {
    const options = this.options;
    const payload = options.singleObject && batch.length === 1 ? JSON.stringify(batch[0]) : JSON.stringify(batch);
    const stats = this.stats;
    const count = batch.length;
    const sentAt = performance.now();
    stats.inFlight += 1;
    stats.publishes += 1;
    stats.messagesSent += count;
    client.publish(this.topic, payload, { qos: options.qos }, (error) => {
      stats.inFlight -= 1;
      if (error === undefined || error === null) {
        stats.publishesAcked += 1;
        stats.messagesAcked += count;
        options.latencies.record(performance.now() - sentAt);
      } else {
        this.reportError(error);
      }
      options.onSettled(this);
    });
  }

  /** Answers the commands on one downlink topic, if they are for one of this gateway's devices. */
  private handleDownlink(topic: string, payload: Buffer): void {
    const address = parseDownlinkTopic(topic);
    if (address === undefined || address.organizationId !== this.options.organizationId) return;
    const device = this.devicesByTuid.get(address.tuid);
    if (device === undefined || this.client === undefined) return;
    let body: unknown;
    try {
      body = JSON.parse(payload.toString('utf8'));
    } catch {
      this.reportError(new Error(`unreadable command payload on ${topic}`));
      return;
    }
    const commands = Array.isArray(body) ? body : [body];
    this.stats.commandsReceived += commands.length;
    const answers = respondToCommands(device, commands, Date.now());
    if (answers.length === 0) return;
    this.stats.responsesSent += answers.length;
    this.client.publish(this.topic, JSON.stringify(answers), { qos: this.options.qos }, (error) => {
      if (error !== undefined && error !== null) this.reportError(error);
    });
  }

  private reportError(error: Error): void {
    this.stats.errors += 1;
    this.options.onError?.(error, this.tuid);
  }
}
