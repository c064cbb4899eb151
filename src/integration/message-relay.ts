import { connectAsync, type MqttClient } from 'mqtt';
import type { DomainEventBus } from '../domain/events.js';
import type { StoredMessage } from '../domain/messages/message-types.js';
import type { Problem } from '../catalog/types.js';
import { clusterMessagesFilter, clusterMessagesTopic } from '../mqtt/topics.js';
import type { Logger } from '../observability/logger.js';
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
 */
export class MessageRelay {
  private client: MqttClient | undefined;
  private up = false;
  private readonly stopListening: () => void;
  private readonly order: StoredOrderBuffer;
  private readonly unstage: () => void;

  constructor(private readonly deps: { url: string; instanceId: string; events: DomainEventBus; logger: Logger }) {
    this.stopListening = deps.events.on('messagesStored', ({ messages }) => this.send(messages));
    // Local and relayed batches meet here, before live streams: each thing's messages go on in stored order.
    const { events } = deps;
    const staged = events.stageAnyInstance('messagesStored', {
      pass: ({ messages }) => (events.hasRelayListeners('messagesStored') ? this.order.push(messages) : undefined),
      listenersChanged: (count) => this.order.listening(count > 0),
    });
    this.order = new StoredOrderBuffer({ deliver: (messages) => staged.deliver({ messages }) });
    this.order.listening(events.hasRelayListeners('messagesStored'));
    this.unstage = staged.remove;
  }

  async start(): Promise<void> {
    const client = await connectAsync(this.deps.url, {
      clientId: `${this.deps.instanceId}-relay`,
      protocolVersion: 5,
      clean: true,
      reconnectPeriod: 1000,
      connectTimeout: 10_000,
    });
    this.client = client;
    client.on('message', (_topic, payload) => this.received(payload));
    client.on('error', (error) => this.deps.logger.warn({ err: error.message }, 'message relay: broker error'));
    client.on('close', () => this.changed(false));
    // Every reconnection subscribes again: the session is clean, so the broker forgot the subscription. A refusal
    // then is logged and leaves the link down (streams refused); only the first one fails the start.
    client.on('connect', () => void this.subscribe(client).catch(() => undefined));
    await this.subscribe(client);
  }

  async stop(): Promise<void> {
    this.stopListening();
    this.unstage();
    this.order.close();
    const client = this.client;
    this.client = undefined;
    await client?.endAsync(false);
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

  private send(messages: readonly StoredMessage[]): void {
    const client = this.client;
    // Also while the link is down: mqtt.js keeps QoS 1 publishes and sends them on reconnection, so the others get them late rather than never.
    if (!client) return;
    client
      .publishAsync(clusterMessagesTopic(this.deps.instanceId), encodeBatch(this.deps.instanceId, messages), { qos: 1 })
      .catch((error: unknown) => this.deps.logger.warn({ err: (error as Error).message }, 'message relay: batch not relayed'));
  }

  private received(payload: Buffer): void {
    // Nothing here follows live messages now (no subscription): the batch need not even be read.
    if (!this.deps.events.hasRelayListeners('messagesStored')) return;
    const batch = decodeBatch(payload);
    if (!batch) {
      this.deps.logger.warn('message relay: unreadable batch ignored');
      return;
    }
    if (batch.origin === this.deps.instanceId) return;
    this.deps.events.emitRelayed('messagesStored', { messages: batch.messages });
  }
}

/**
 * A batch on the relay topic: one line of JSON (the origin and each message's envelope, with its body's length),
 * then the bodies one after the other, as stored. Carrying the bodies outside the JSON spares escaping them on one
 * side and unescaping them on the other, which was most of the relay's cost.
 */
export function encodeBatch(origin: string, messages: readonly StoredMessage[]): string {
  const head: RelayHead = {
    o: origin,
    m: messages.map((m) => [
      m.organizationId,
      m.tuid,
      m.tsmId,
      m.tsmEv,
      m.tsmTs,
      m.gatewayTuid,
      m.fingerprint,
      m.groupId,
      m.receivedAt,
      m.body.length,
      m.problems.length > 0 ? m.problems : 0,
      m.seq ?? 0,
      m.previousAt ?? null,
    ]),
  };
  // JSON.stringify never writes a raw line break, so the first one ends the head.
  return `${JSON.stringify(head)}\n${messages.map((m) => m.body).join('')}`;
}

export function decodeBatch(payload: Buffer): { origin: string; messages: StoredMessage[] } | undefined {
  const text = payload.toString('utf8');
  const end = text.indexOf('\n');
  if (end < 0) return undefined;
  let head: RelayHead;
  try {
    head = JSON.parse(text.slice(0, end)) as RelayHead;
  } catch {
    return undefined;
  }
  if (typeof head.o !== 'string' || !Array.isArray(head.m)) return undefined;
  let offset = end + 1;
  const messages = head.m.map((wire) => {
    const body = text.slice(offset, offset + wire[9]);
    offset += wire[9];
    return fromWire(wire, body);
  });
  return offset === text.length ? { origin: head.o, messages } : undefined;
}

interface RelayHead {
  o: string;
  m: WireEnvelope[];
}

type WireEnvelope = [
  organizationId: string,
  tuid: string,
  tsmId: number,
  tsmEv: number | null,
  tsmTs: number,
  gatewayTuid: string | null,
  fingerprint: string,
  groupId: string | null,
  receivedAt: number,
  bodyLength: number,
  problems: readonly Problem[] | 0,
  /** 0: none (seqs start at 1). */
  seq: number,
  previousAt: number | null,
];

function fromWire(wire: WireEnvelope, body: string): StoredMessage {
  const [organizationId, tuid, tsmId, tsmEv, tsmTs, gatewayTuid, fingerprint, groupId, receivedAt, , problems, seq, previousAt] = wire;
  let parsed: Readonly<Record<string, unknown>> | undefined;
  return {
    ...(seq > 0 ? { seq, previousAt } : {}),
    organizationId,
    tuid,
    tsmId,
    tsmEv,
    tsmTs,
    gatewayTuid,
    fingerprint,
    groupId,
    receivedAt,
    body,
    problems: problems === 0 ? [] : problems,
    // Parsed only if a listener reads it: live streams serve `body` as it is.
    get message() {
      return (parsed ??= JSON.parse(body) as Readonly<Record<string, unknown>>);
    },
  };
}
