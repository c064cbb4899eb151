import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';

/** One request a receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A real webhook receiver on loopback (node:http, port 0): records every request and answers as `respond` says
 * (200 by default; `respond` may also never answer, for a hung receiver).
 */
export class Receiver {
  readonly received: Received[] = [];
  respond: (request: Received, response: ServerResponse, index: number) => void = (_r, response) => response.end('ok');
  private readonly server: Server;
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  private readonly open = new Set<ServerResponse>();

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const entry = { path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.received.push(entry);
        this.open.add(response);
        response.on('close', () => this.open.delete(response));
        this.respond(entry, response, this.received.length - 1);
        for (const w of this.waiters.splice(0))
          if (this.received.length >= w.count) w.resolve();
          else this.waiters.push(w);
      });
    });
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Resolves once `count` requests have arrived (fails after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 10_000): Promise<Received[]> {
    if (this.received.length < count) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${this.received.length} of ${count} requests`)), timeoutMs);
        this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      });
    }
    return this.received;
  }

  /** Events of every request (a batch counts each of its events). */
  events(): { id: string; type: string; data: Record<string, unknown> }[] {
    return this.received.flatMap((r) => {
      const body = JSON.parse(r.body) as { type: string; data: unknown };
      return (body.type === 'batch' ? body.data : [body]) as { id: string; type: string; data: Record<string, unknown> }[];
    });
  }

  async stop(): Promise<void> {
    for (const response of this.open) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Verifies a received request with the `standardwebhooks` library; throws when it does not verify. */
export function verify(secret: string, received: Pick<Received, 'headers' | 'body'>): unknown {
  const headers = {
    'webhook-id': String(received.headers['webhook-id']),
    'webhook-timestamp': String(received.headers['webhook-timestamp']),
    'webhook-signature': String(received.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(received.body, headers);
}

/** Test settings: short retries, the loopback receivers allowed. */
export const webhookTestEnv = {
  WEBHOOK_RETRY_SCHEDULE: '0,0.2,0.2',
  WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32,169.254.0.0/16',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_CONCURRENCY: '2',
};

export async function startWebhookApp(env: Record<string, string> = {}): Promise<{ server: TestApp; rest: RestClient }> {
  const server = await startTestApp({ ...webhookTestEnv, ...env });
  return { server, rest: new RestClient(server) };
}

let nextTsm = 1_700_000_000;

/** Publishes `count` readings of `tuid` (message id 12100) and resolves after their commit. */
export async function publishReadings(server: TestApp, tuid: string, count: number, tsmId = 12100): Promise<void> {
  const messages = Array.from({ length: count }, () => ({ tsmId, tsmEv: 10, tsmTs: nextTsm++, tsmTuid: tuid, tsmGw: 'GW-1', temp: 20 }));
  await publishUplinks(server, messages);
}

/** Polls until `probe` gives a value (no fixed sleeps: each turn waits 25 ms). */
export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** One entry of a webhook's delivery log (GET /webhooks/{id}/deliveries). */
export interface LoggedDelivery {
  id: string;
  status: string;
  attempts: { status_code: number | null; error: string | null }[];
}

/**
 * What the delivery tests do over and over: start a receiver (kept in `receivers`, for the file's `after` to stop),
 * create a webhook, read its delivery log. `rest` is read at each call: the platform starts in `before`.
 */
export function deliveryTools(rest: () => RestClient, receivers: Receiver[]) {
  return {
    receiver: async () => {
      const r = await new Receiver().start();
      receivers.push(r);
      return r;
    },
    create: async (body: Record<string, unknown>) => {
      const response = await rest().post('/webhooks', body);
      assert.equal(response.status, 200, response.text);
      return response.body.data as { id: string; secret: string; health: { state: string } };
    },
    log: async (id: string) => (await rest().get(`/webhooks/${id}/deliveries`)).body.data as LoggedDelivery[],
  };
}
