import { createServer, type Server, type Socket } from 'node:net';
import { Aedes, type Client } from 'aedes';
import type { Logger } from '../observability/logger.js';
import { mayPublish, maySubscribe, type MqttPrincipal } from './access-rules.js';
import { FailureWindow } from '../domain/auth/failure-window.js';
import { AuthThrottle, type AuthThrottleLimits } from './auth-throttle.js';
import { ClientIdOwners } from './client-id-owners.js';
import type { MqttTransport, UplinkHandler } from './mqtt-transport.js';
import { parseUplinkTopic } from './topics.js';

export interface EmbeddedBrokerOptions {
  port: number;
  host: string;
  /** MQTT 5 Receive Maximum announced in every CONNACK (unacknowledged QoS 1 uplinks per client). */
  receiveMaximum: number;
  /** Largest packet accepted (bytes), announced as MQTT 5 Maximum Packet Size; larger ones close the connection. */
  maxPacketSize: number;
  /** Milliseconds a new connection has to complete its CONNECT. */
  connectTimeoutMs: number;
  /** How often connected clients' credentials are checked against the store (milliseconds). */
  credentialRecheckMs: number;
  /** Failed authentications allowed per username and per address within a window, before CONNECTs are refused unchecked. */
  authFailures: AuthThrottleLimits;
  now: () => number;
  feedTemplate: string;
  logger: Logger;
  /** Checks a username and password against the store; undefined when they are wrong or revoked. */
  authenticate(username: string, password: string): Promise<MqttPrincipal | undefined>;
  /** True until the platform has finished starting: a CONNECT that fails is answered "server unavailable", uncounted. */
  isStarting?: () => boolean;
  /** False once the credential is revoked or gone (revocations made by another instance or the CLI). */
  isCredentialActive(username: string): Promise<boolean>;
  onUplink: UplinkHandler;
}

/**
 * The broker inside the process (aedes, MQTT 3.1.1 and 5): authenticates clients against the store's MQTT
 * credentials, enforces the access rules, and ingests every uplink *before* acknowledging it. aedes sends the
 * PUBACK of a QoS 1 publish only after `authorizePublish` calls back, so a message it acknowledged is already
 * committed.
 *
 * A refused publish closes a 3.1.1 connection; an MQTT 5 client gets a PUBACK with reason code 0x87 (Not
 * authorized) and stays connected. A refused subscription is granted 0x80 (3.1.1) or 0x87 (5).
 *
 * A client id belongs to the credential that first used it (`ClientIdOwners`); a revoked credential's clients
 * are disconnected. Uplinks are never retained: the broker stores them, it does not keep them for subscribers.
 */
export class EmbeddedBroker implements MqttTransport {
  readonly mode = 'embedded';
  private broker: Aedes | undefined;
  private server: Server | undefined;
  private readonly principals = new WeakMap<Client, MqttPrincipal>();
  private readonly owners = new ClientIdOwners();
  private readonly throttle: AuthThrottle;
  /** Oversized packets, per address (before CONNECT completed) and per username (after): the tarpit's trigger. */
  private readonly violations: FailureWindow;
  private readonly tarpitted = new Map<string, number>();
  private readonly held = new Set<Socket>();
  private recheckTimer: NodeJS.Timeout | undefined;
  port: number | undefined;

  constructor(private readonly options: EmbeddedBrokerOptions) {
    this.throttle = new AuthThrottle(options.authFailures, options.now);
    this.violations = new FailureWindow(tarpit.windowMs, options.now);
  }

  /** Connected clients by credential kind, counted when asked (metrics): no state of its own to keep right. */
  connectionsByKind(): Record<string, number> {
    const counts: Record<string, number> = { gateway: 0, integration: 0 };
    for (const client of Object.values(this.broker ? internalsOf(this.broker).clients : {})) {
      const kind = this.principals.get(client)?.kind;
      if (kind) counts[kind] = (counts[kind] ?? 0) + 1;
    }
    return counts;
  }

  async start(): Promise<void> {
    const { options } = this;
    const broker = await Aedes.createBroker({
      // Long client ids are common (mqtt.js generates 23+ characters; simulators add prefixes).
      maxClientsIdLength: 256,
      // An uplink is acknowledged only once committed, so each unacknowledged one waits in memory; MQTT 5 clients
      // keep to this many per connection. (aedes announces it and does not enforce it; 3.1.1 has no such limit.)
      receiveMaximum: options.receiveMaximum,
      // aedes refuses a packet as soon as its fixed header announces more (before buffering the body).
      maximumPacketSize: options.maxPacketSize,
      connectTimeout: options.connectTimeoutMs,
      authenticate: (client, username, password, done) => {
        if (!username || !password) return done(authError('bad username or password', 4), false);
        const address = addressOf(client);
        // Refused before the password is checked: CONNACK 5 (3.1.1) / 0x87 Not authorized (5).
        if (this.throttle.isBlocked(username, address)) return done(authError('too many failed authentications; retry later', 5), false);
        // Taken before the look-up: a credential missing then may have been created by the start meanwhile.
        const early = options.isStarting?.() ?? false;
        // A credential that keeps sending oversized packets waits before each answer: its reconnect loop slows down.
        const check = () => options.authenticate(username, password.toString('utf8'));
        const held = this.violations.reached(`u:${username}`, tarpit.violations);
        (held ? delay(tarpit.holdMs).then(check) : check()).then(
          (principal) => {
            // Early, not wrong: on a first start the bootstrap credential may not exist yet. Not counted as a
            // failure. A credential that checks out is taken at once (its uplinks can be stored), and mqtt.js gives
            // up after any refused CONNACK unless told otherwise.
            if (!principal && early) return done(authError('the platform is starting; retry', 3), false);
            if (!principal) {
              this.throttle.recordFailure(username, address);
              return done(authError('bad username or password', 4), false);
            }
            this.throttle.recordSuccess(username);
            if (!this.owners.claim(client.id, principal.username))
              return done(authError('client identifier in use by another credential', 2), false);
            this.principals.set(client, principal);
            done(null, true);
          },
          (error: unknown) => {
            options.logger.error({ err: error }, 'MQTT authentication failed on the store');
            done(authError('server unavailable', 3), false);
          },
        );
      },
      authorizePublish: (client, packet, done) => {
        const principal = client && this.principals.get(client);
        if (!client || !principal || !mayPublish(principal, packet.topic))
          return done(new Error(`publish to ${packet.topic} is not allowed`));
        const topic = parseUplinkTopic(packet.topic)!;
        // Uplinks are stored, never kept by the broker: a retained 1 MB uplink would otherwise live in memory.
        packet.retain = false;
        options
          .onUplink({
            topic: packet.topic,
            organizationId: topic.organizationId,
            gatewayTuid: topic.gatewayTuid,
            payload: packet.payload as Buffer,
            username: principal.username,
          })
          .then(
            () => done(null),
            // Not acknowledged, so the gateway sends the message again after reconnecting: the connection closes
            // first. (An error alone would close a 3.1.1 connection, but answer an MQTT 5 client with a failure
            // PUBACK, which ends the delivery on its side; it is told 0x89, Server busy, instead.)
            (error: unknown) =>
              client.disconnect({ reasonCode: serverBusy }, () => done(error instanceof Error ? error : new Error(String(error)))),
          );
      },
      authorizeSubscribe: (client, subscription, done) => {
        const principal = client ? this.principals.get(client) : undefined;
        // A null subscription refuses just this one (SUBACK 0x80) and keeps the connection.
        if (!principal || !maySubscribe(principal, subscription.topic, options.feedTemplate)) return done(null, null as never);
        done(null, subscription);
      },
    });
    broker.on('clientError', (client, error) => {
      options.logger.debug({ clientId: client.id, err: error.message }, 'MQTT client error');
      const principal = this.principals.get(client);
      if (principal && isPacketTooLarge(error)) this.violations.record(`u:${principal.username}`);
    });
    broker.on('connectionError', (client, error) => {
      if (isPacketTooLarge(error)) this.violations.record(`a:${addressOf(client)}`);
    });
    broker.on('clientDisconnect', (client) => {
      const principal = this.principals.get(client);
      // A clean session ends with its connection; a takeover by the same credential already holds the id.
      if (principal && client.clean && !internalsOf(broker).clients[client.id]) this.owners.release(client.id, principal.username);
    });
    this.broker = broker;
    this.recheckTimer = setInterval(() => void this.recheckCredentials(), options.credentialRecheckMs);
    this.recheckTimer.unref();
    const server = createServer((socket) => {
      if (this.violations.reached(`a:${socket.remoteAddress ?? 'unknown'}`, tarpit.violations)) this.holdInTarpit(socket);
      else broker.handle(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : options.port;
  }

  /**
   * An address that sent oversized packets before authenticating keeps sending them in a loop, each attempt costing
   * an accepted connection and a read. Its new connections are held unread and closed after a while, so the loop
   * waits for its answer; a bounded number per address, past which they are closed at once.
   */
  private holdInTarpit(socket: Socket): void {
    const address = socket.remoteAddress ?? 'unknown';
    const held = this.tarpitted.get(address) ?? 0;
    socket.on('error', () => undefined);
    if (held >= tarpit.maxHeldPerAddress) {
      socket.destroy();
      return;
    }
    this.tarpitted.set(address, held + 1);
    this.held.add(socket);
    socket.pause();
    const timer = setTimeout(() => socket.destroy(), tarpit.holdMs);
    socket.once('close', () => {
      clearTimeout(timer);
      this.held.delete(socket);
      const left = (this.tarpitted.get(address) ?? 1) - 1;
      if (left > 0) this.tarpitted.set(address, left);
      else this.tarpitted.delete(address);
    });
  }

  /**
   * Closes every live connection of `username` (its credential was revoked) and frees its client ids, dropping
   * their stored sessions so that the next owner does not inherit the revoked one's subscriptions.
   */
  disconnectCredential(username: string): void {
    const broker = this.broker;
    if (!broker) return;
    for (const client of Object.values(internalsOf(broker).clients)) {
      if (this.principals.get(client)?.username === username) client.close();
    }
    for (const clientId of this.owners.releaseAll(username)) {
      internalsOf(broker)
        .persistence.cleanSubscriptions({ id: clientId })
        .catch((error: unknown) => this.options.logger.warn({ err: error, clientId }, 'could not drop a revoked session'));
    }
  }

  private async recheckCredentials(): Promise<void> {
    const broker = this.broker;
    if (!broker) return;
    const usernames = new Set<string>();
    for (const client of Object.values(internalsOf(broker).clients)) {
      const username = this.principals.get(client)?.username;
      if (username) usernames.add(username);
    }
    for (const username of usernames) {
      try {
        if (!(await this.options.isCredentialActive(username))) this.disconnectCredential(username);
      } catch (error) {
        // The store is unreachable: keep the connections (their uplinks fail on their own) and try again later.
        this.options.logger.debug({ err: error }, 'MQTT credential recheck failed');
        return;
      }
    }
  }

  async stop(): Promise<void> {
    if (this.recheckTimer) clearInterval(this.recheckTimer);
    const server = this.server;
    const broker = this.broker;
    this.server = undefined;
    this.broker = undefined;
    if (broker) await new Promise<void>((resolve) => broker.close(() => resolve()));
    for (const socket of this.held) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  publish(topic: string, payload: string | Buffer, qos: 0 | 1): Promise<void> {
    const broker = this.broker;
    if (!broker) return Promise.reject(new Error('the embedded broker is not running'));
    return new Promise((resolve, reject) => {
      broker.publish(
        { cmd: 'publish', topic, payload: typeof payload === 'string' ? Buffer.from(payload) : payload, qos, retain: false, dup: false },
        (error) => (error ? reject(error) : resolve()),
      );
    });
  }

  async ping(): Promise<void> {
    if (!this.server?.listening) throw new Error('the embedded broker is not listening');
  }
}

/** What aedes has at run time and its type declarations leave out: the live clients by id, and its session store. */
interface AedesInternals {
  clients: Record<string, Client>;
  persistence: { cleanSubscriptions(client: { id: string }): Promise<unknown> };
}

function internalsOf(broker: Aedes): AedesInternals {
  return broker as unknown as AedesInternals;
}

/** MQTT 5 DISCONNECT reason code 0x89: the server is busy (here: the store did not take the message). */
const serverBusy = 0x89;

/**
 * A CONNACK refusal: 4 is "bad user name or password", 3 "server unavailable" (MQTT 3.1.1 return codes; aedes
 * sends MQTT 5 clients the matching reason codes, 0x86 and 0x88).
 */
/**
 * The tarpit: an address that sent `violations` oversized packets before CONNECT within `windowMs` (counted from
 * the first) has its new connections held unread for `holdMs`, at most `maxHeldPerAddress` at once; a credential
 * that sent as many after CONNECT waits `holdMs` for the answer to each CONNECT.
 */
const tarpit = { violations: 10, windowMs: 60_000, holdMs: 2000, maxHeldPerAddress: 50 } as const;

function isPacketTooLarge(error: Error): boolean {
  return (error as { maximumPacketSize?: number }).maximumPacketSize !== undefined;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function addressOf(client: Client): string {
  const conn = client.conn as { remoteAddress?: string } | undefined;
  return conn?.remoteAddress ?? 'unknown';
}

function authError(message: string, returnCode: number): Error & { returnCode: number } {
  return Object.assign(new Error(message), { returnCode });
}
