import { createHash } from 'node:crypto';
import pg from 'pg';
import type { DomainEventBus, DomainEventName, DomainEvents } from '../domain/events.js';
import type { Logger } from '../observability/logger.js';

/**
 * Relays the deployment's small domain events between instances on one PostgreSQL store, through LISTEN/NOTIFY on
 * the store the instances already share: what one instance emits, every other re-emits as relayed
 * (DomainEventBus.emitRelayed), so live streams and caches follow the whole deployment. A session ended on A ends
 * its streams on B at once, an alert opened by the engine on A reaches subscriptions on B.
 *
 * Not relayed here: `messagesStored` (tens of thousands of messages a second do not belong in NOTIFY; the broker
 * relays them, message-relay.ts), and an event whose JSON exceeds NOTIFY's 8000 bytes (a
 * command answered with a large message): those reach other instances' clients only through what they read from
 * the store. While the listening connection is down, other instances' events are missed: it is logged and told
 * to the live streams (`relayLinkChanged`), which end and refuse subscriptions until it is back; session ends
 * missed meanwhile are caught by the periodic session check (GRAPHQL_SESSION_RECHECK_S).
 */
export const relayedEvents = [
  'sessionsEnded',
  'apiClientRevoked',
  'mqttCredentialRevoked',
  'alertChanged',
  'commandAnswered',
  'webhooksChanged',
  'alertRulesChanged',
  'alertRulePendingChanged',
] as const satisfies readonly DomainEventName[];

/**
 * The deployment's channel. NOTIFY reaches every session of the database, whatever its schema, so deployments kept
 * in schemas of one database would hear each other's events (a session ended in one would close streams in the
 * other): the channel is named after the schema the store lives in. `public` keeps the name instances had before,
 * so a rolling upgrade does not split a deployment in two.
 */
export function eventsChannelOf(schema: string): string {
  return schema === 'public' ? 'thingdesk_events' : `thingdesk_events_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
}
// PostgreSQL refuses a NOTIFY payload of 8000 bytes or more.
const payloadLimitBytes = 7_900;
const reconnectMs = 1_000;

interface Relayed {
  /** Origin instance: its own notifications come back to it and are skipped. */
  o: string;
  n: DomainEventName;
  p: unknown;
}

export class ClusterEvents {
  private client: pg.Client | undefined;
  private channel = eventsChannelOf('public');
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(private readonly deps: { databaseUrl: string; events: DomainEventBus; instanceId: string; logger: Logger }) {}

  async start(): Promise<void> {
    await this.connect();
    for (const name of relayedEvents) this.unsubscribe.push(this.deps.events.on(name, (event) => this.send(name, event)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    for (const off of this.unsubscribe.splice(0)) off();
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.deps.databaseUrl });
    client.on('notification', (message) => this.received(message.payload));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    await client.connect();
    const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
    this.channel = eventsChannelOf(rows[0]?.schema ?? 'public');
    await client.query(`listen ${client.escapeIdentifier(this.channel)}`);
    this.client = client;
  }

  private lost(client: pg.Client, error?: Error): void {
    if (this.stopped || client !== this.client) return;
    this.client = undefined;
    this.deps.logger.warn({ err: error?.message }, "cluster events connection lost: other instances' events are missed until it is back");
    this.deps.events.emit('relayLinkChanged', { link: 'store', up: false });
    const retry = () => {
      if (this.stopped) return;
      this.connect().then(
        () => {
          this.deps.logger.info('cluster events connection back');
          this.deps.events.emit('relayLinkChanged', { link: 'store', up: true });
        },
        () => (this.reconnectTimer = setTimeout(retry, reconnectMs)),
      );
    };
    this.reconnectTimer = setTimeout(retry, reconnectMs);
  }

  private send<K extends DomainEventName>(name: K, event: DomainEvents[K]): void {
    const payload = JSON.stringify({ o: this.deps.instanceId, n: name, p: event } satisfies Relayed);
    if (Buffer.byteLength(payload) > payloadLimitBytes) {
      this.deps.logger.debug(
        { event: name, bytes: Buffer.byteLength(payload) },
        'event too large to relay; other instances read it from the store',
      );
      return;
    }
    const client = this.client;
    if (!client) return;
    client
      .query('select pg_notify($1, $2)', [this.channel, payload])
      .catch((error: unknown) => this.deps.logger.warn({ err: error, event: name }, 'event not relayed'));
  }

  private received(payload: string | undefined): void {
    if (payload === undefined) return;
    let relayed: Relayed;
    try {
      relayed = JSON.parse(payload) as Relayed;
    } catch {
      return;
    }
    if (relayed.o === this.deps.instanceId || !(relayedEvents as readonly string[]).includes(relayed.n)) return;
    this.deps.events.emitRelayed(relayed.n, relayed.p as DomainEvents[typeof relayed.n]);
  }
}
