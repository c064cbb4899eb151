/** The load of the random-kill test: gateways publishing with persistent sessions, and a REST client writing, both through kills. */
import assert from 'node:assert/strict';
import { connectAsync, type MqttClient } from 'mqtt';
import { testBootstrap } from '../helpers/test-app.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The first uplink's tsmTs: uplink `seq` is stored with t0 + seq, so the store tells which ones arrived. */
export const t0 = 1_790_000_000;
const inFlightPerGateway = 50;

/** A gateway with a persistent session: what is not acknowledged is sent again after each reconnect. */
export class Gateway {
  readonly acknowledged = new Set<number>();
  sent = 0;
  /** Errors mqtt.js reported for publishes (each publish is sent again). */
  readonly failures: string[] = [];
  private stopped = false;
  private closed = false;
  private loop: Promise<void> | undefined;

  private constructor(
    readonly name: string,
    private readonly client: MqttClient,
  ) {}

  static async connect(name: string, mqttPort: number): Promise<Gateway> {
    const client = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
      protocolVersion: 4,
      clientId: `random-kill-${name}`,
      clean: false,
      reconnectPeriod: 100,
      connectTimeout: 2000,
      username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
      password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
    });
    client.on('error', () => undefined);
    return new Gateway(name, client);
  }

  tuid(seq: number): string {
    return `RK-${this.name}-${seq % 10}`;
  }

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        // Many publishes in flight, so every kill lands while some are unacknowledged.
        if (this.sent - this.acknowledged.size >= inFlightPerGateway) {
          await sleep(2);
          continue;
        }
        this.publish(this.sent++);
        if (this.sent % 10 === 0) await sleep(1);
      }
    })();
  }

  /**
   * mqtt.js resends an unacknowledged publish after a reconnect by itself, but fails some (those queued while it
   * was replaying its store when the connection dropped again) with an error: a gateway sends those again.
   */
  private publish(seq: number): void {
    const payload = JSON.stringify([
      { tsmId: 1110, tsmEv: 10, tsmTs: t0 + seq, tsmTuid: this.tuid(seq), tsmGw: this.name, batl: seq % 100 },
    ]);
    this.client.publish(`thingdesk/acme/up/${this.name}`, payload, { qos: 1 }, (error) => {
      if (!error) this.acknowledged.add(seq);
      else if (!this.closed) {
        this.failures.push(error.message);
        setTimeout(() => this.publish(seq), 100);
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** What a failure report needs: the connection and the first unacknowledged publishes. */
  describe(): string {
    const unacked = Array.from({ length: this.sent }, (_, seq) => seq).filter((seq) => !this.acknowledged.has(seq));
    return `${this.name}: connected ${this.client.connected}, reconnecting ${this.client.reconnecting}, ${unacked.length} unacknowledged: ${unacked.slice(0, 10).join(', ')}; outgoing ${Object.keys(this.client.outgoing).length}; ${this.failures.length} publish errors: ${[...new Set(this.failures)].join('; ')}`;
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.closed = true;
    await this.loop?.catch(() => undefined);
    await this.client.endAsync(true).catch(() => undefined);
  }
}

export type Write =
  { kind: 'group'; groupId: string } | { kind: 'installation'; tuid: string } | { kind: 'command'; transactionId: number };

/** A REST client that does writes one after another, through kills, and records each one answered 200. */
export class RestWriter {
  readonly answered: Write[] = [];
  attempts = 0;
  private token: string | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly base: string,
    readonly commandTuid: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: { data?: unknown } }> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    // A request the kill interrupts fails (connection reset, refused); the timeout bounds one that hangs.
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    return { status: response.status, body: (await response.json()) as { data?: unknown } };
  }

  async signIn(): Promise<void> {
    const response = await this.call('POST', '/auth/client-token', {
      client_id: testBootstrap.BOOTSTRAP_CLIENT_ID,
      client_secret: testBootstrap.BOOTSTRAP_CLIENT_SECRET,
    });
    assert.equal(response.status, 200);
    this.token = (response.body.data as { token: string }).token;
  }

  start(): void {
    this.loop = (async () => {
      for (let n = 0; !this.stopped; n++) {
        const write = this.nextWrite(n);
        this.attempts += 1;
        try {
          const response = await this.send(write);
          if (response.status === 200) this.answered.push(write);
          else if (response.status !== 503)
            throw new Error(`unexpected ${response.status} for ${JSON.stringify(write)}: ${JSON.stringify(response.body)}`);
        } catch (error) {
          if (error instanceof Error && error.message.startsWith('unexpected')) throw error;
          // The platform is down or restarting: a new write (a new id) a moment later.
          await sleep(50);
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private nextWrite(n: number): Write {
    if (n % 3 === 0) return { kind: 'group', groupId: `rk-${n}` };
    if (n % 3 === 1) return { kind: 'installation', tuid: `RKI-${n}` };
    return { kind: 'command', transactionId: n };
  }

  private send(write: Write) {
    switch (write.kind) {
      case 'group':
        return this.call('POST', '/groups', { group_id: write.groupId });
      case 'installation':
        return this.call('POST', `/things/${write.tuid}/installations`, { installation_status: 'installed' });
      case 'command':
        return this.call('POST', `/things/${this.commandTuid}/commands`, [
          { tsmId: 1500, tsmEv: 30, transactionId: write.transactionId, measurementInterval: 60, reportInterval: 300 },
        ]);
    }
  }
}
