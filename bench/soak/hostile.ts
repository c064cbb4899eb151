/**
 * The hostile client of `bench:soak --hostile`: one process of the attacker's, repeating at once the attacks of
 * the trust issue that cost the platform the most, each in its own loop, as fast as the platform lets it:
 *
 * - a GraphQL document whose fragments double at every level (anonymous, so no limit but the parser's applies),
 * - MQTT CONNECT packets that announce 255 MB, and an authenticated uplink over the maximum packet size,
 * - a WebSocket holding many `messages` subscriptions that never reads what it is sent,
 * - an uplink of 1,000,000 elements (`[0,0,...]`),
 * - REST requests carrying random 14 KB bearer tokens, each one different,
 * - a Viewer's twenty aliased raw series, twenty failing aliased groupSeries, and anonymous sign-ins with fresh
 *   e-mails (hostile-reads.ts).
 *
 * Each attack counts its attempts and how they ended, so the report shows that the hostile client kept trying
 * for the whole phase rather than giving up after one refusal.
 *
 * The attacker comes from its own address (127.0.0.2, another host as far as the platform can tell). The soak
 * raises the platform's rate limits so that its own readers, all on 127.0.0.1, are never throttled; so that the
 * attacker is not given more than a real deployment would let through, its HTTP attacks together are paced at
 * `httpPerSecond`, the default per-address limit (RATE_LIMIT_PER_ADDRESS 12,000 a minute), which counts every
 * request of an address (until session 19 each attack had that pace to itself: six kinds of HTTP attack, some two
 * at a time, sent about 1,000 requests a second from one address, five times what the limit lets through). MQTT attacks
 * are bounded by nothing but the platform's answers: each starts again as soon as the last one ended (mqtt.js
 * cannot choose its source address, so the gateway attacks come from 127.0.0.1; the raw CONNECTs do not).
 */
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { connect as connectTcp } from 'node:net';
import { connectAsync, type MqttClient } from 'mqtt';
import WebSocket from 'ws';
import { sleep } from '../lib/processes.js';
import { hostileReads, type HostileReadName } from './hostile-reads.js';

export interface HostileOptions {
  httpBase: string;
  mqttHost: string;
  mqttPort: number;
  organizationId: string;
  mqttUsername: string;
  mqttPassword: string;
  /** A signed-in user's access token, for the WebSocket that subscribes and never reads. */
  accessToken: () => string;
  /** Requests per second of each HTTP attack. */
  httpPerSecond: number;
  /** A signed-in Viewer's access token, for the hostile reads. */
  viewerToken: () => string;
  /** TUIDs of reporting things, for the series the Viewer reads. */
  tuids: readonly string[];
  organizationName: string;
}

/** The attacker's own source address: a second loopback address, so the platform sees another client. */
export const hostileAddress = '127.0.0.2';

export type AttackName =
  'fragment-bomb' | 'huge-connect' | 'oversize-uplink' | 'unread-subscriptions' | 'poison-uplink' | 'random-tokens' | HostileReadName;

/** How many of each hostile read run side by side (the red team sent two of its aliased requests in parallel). */
const hostileReadParallel: Record<HostileReadName, number> = {
  'viewer-raw-series-year': 2,
  'viewer-raw-series': 2,
  'failing-siblings': 2,
  // Two at a time, sharing the address's pace with the other HTTP attacks (see httpPerSecond).
  'login-flood': 2,
};

export interface AttackCounts {
  attempts: number;
  /** How each attempt ended, by kind (status codes, close codes, error messages). */
  outcomes: Map<string, number>;
}

export interface HostileClient {
  counts: Map<AttackName, AttackCounts>;
  stop(): Promise<void>;
}

/** Doubling fragments: `F1` spreads `F2` twice, ... 25 levels make 2^25 field visits for a naive walk. */
export function fragmentBomb(levels = 25): string {
  const fragments = [];
  for (let level = 1; level < levels; level++) fragments.push(`fragment F${level} on Query { ...F${level + 1} ...F${level + 1} }`);
  fragments.push(`fragment F${levels} on Query { __typename }`);
  return `query { ...F1 }\n${fragments.join('\n')}`;
}

const unreadSubscriptions = 2000;
const holdUnreadMs = 20_000;
const announcedConnectBytes = 255 * 1024 * 1024;

/**
 * SOAK_ATTACKS (a comma-separated list of attack names) runs only those: to tell which attack costs legitimate
 * clients what, one at a time. Unset, every attack runs.
 */
const chosenAttacks = process.env.SOAK_ATTACKS ? new Set(process.env.SOAK_ATTACKS.split(',').map((name) => name.trim())) : undefined;

export function startHostile(options: HostileOptions): HostileClient {
  const counts = new Map<AttackName, AttackCounts>();
  let running = true;
  const record = (attack: AttackName, outcome: string) => {
    const entry = counts.get(attack) ?? { attempts: 0, outcomes: new Map() };
    entry.attempts += 1;
    entry.outcomes.set(outcome, (entry.outcomes.get(outcome) ?? 0) + 1);
    counts.set(attack, entry);
  };
  // Every loop goes on until stop(); an attack that throws is counted and started again after a short pause,
  // so a refusal the platform answers with a closed connection does not end the attack.
  const loop = (attack: AttackName, once: () => Promise<string>, parallel = 1, paced = false) =>
    Array.from({ length: chosenAttacks && !chosenAttacks.has(attack) ? 0 : parallel }, async () => {
      while (running) {
        if (paced) await nextHttpSlot();
        try {
          record(attack, await once());
        } catch (error) {
          record(attack, `error: ${(error as Error).message.slice(0, 60)}`);
          await sleep(100);
        }
      }
    });
  const agent = new Agent({ keepAlive: true, localAddress: hostileAddress });
  // One pace for every HTTP attack together: the per-address limit counts all of an address's requests, so a real
  // deployment lets this address send httpPerSecond in all, whatever it sends.
  const httpInterval = 1000 / options.httpPerSecond;
  let nextSlotAt = performance.now();
  const nextHttpSlot = async () => {
    const now = performance.now();
    const slot = Math.max(now, nextSlotAt);
    nextSlotAt = slot + httpInterval;
    if (slot > now) await sleep(slot - now);
  };

  const bomb = JSON.stringify({ query: fragmentBomb() });
  const loops = [
    ...loop(
      'fragment-bomb',
      async () => `status ${await send(agent, `${options.httpBase}/v1/graphql`, { 'content-type': 'application/json' }, bomb)}`,
      1,
      true,
    ),
    ...loop('huge-connect', () => hugeConnect(options, () => running), 4),
    ...loop('oversize-uplink', () => oversizeUplink(options)),
    ...loop('unread-subscriptions', () => unreadWebSocket(options, () => running)),
    ...loop('poison-uplink', () => poisonUplink(options)),
    ...loop(
      'random-tokens',
      async () => {
        const token = randomBytes(10_500).toString('base64url');
        return `status ${await send(agent, `${options.httpBase}/api/v1/things`, { authorization: `Bearer ${token}` })}`;
      },
      1,
      true,
    ),
    ...(Object.keys(hostileReads) as HostileReadName[]).flatMap((name) =>
      loop(name, () => hostileReads[name]({ ...options, agent }), hostileReadParallel[name], true),
    ),
  ];
  return {
    counts,
    async stop() {
      running = false;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}

/** One request from the attacker's address (fetch cannot choose its source address); resolves with the status. */
function send(agent: Agent, url: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { agent, method: body === undefined ? 'GET' : 'POST', headers }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
      response.once('error', reject);
    });
    request.once('error', reject);
    request.end(body);
  });
}

/**
 * A CONNECT whose fixed header announces 255 MB, then junk for as long as the broker keeps reading: a broker that
 * buffers before it checks the size takes the memory; one that refuses the header closes the socket at once.
 * Resolves with how many bytes went out before the close.
 */
function hugeConnect(options: HostileOptions, running: () => boolean): Promise<string> {
  return new Promise((resolve) => {
    const socket = connectTcp({ port: options.mqttPort, host: options.mqttHost, localAddress: hostileAddress });
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const header = Buffer.from([0x10, ...remainingLength(announcedConnectBytes)]);
    const finish = () => resolve(sent < 1024 * 1024 ? 'closed before 1 MiB' : `closed after ${Math.round(sent / 1024 / 1024)} MiB`);
    socket.once('close', finish);
    socket.once('error', () => undefined);
    socket.once('connect', () => {
      socket.write(header);
      const pump = () => {
        // Stop at the announced size or when the run ends; the broker should have closed long before.
        while (running() && sent < announcedConnectBytes && !socket.destroyed) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
        socket.destroy();
      };
      pump();
    });
  });
}

/** MQTT's variable-length encoding of a packet's remaining length. */
function remainingLength(length: number): number[] {
  const bytes = [];
  do {
    let byte = length % 128;
    length = Math.floor(length / 128);
    if (length > 0) byte |= 0x80;
    bytes.push(byte);
  } while (length > 0);
  return bytes;
}

async function gatewayClient(options: HostileOptions): Promise<MqttClient> {
  return connectAsync(`mqtt://${options.mqttHost}:${options.mqttPort}`, {
    username: options.mqttUsername,
    password: options.mqttPassword,
    protocolVersion: 5,
    reconnectPeriod: 0,
    connectTimeout: 10_000,
  });
}

/** One publish of `payload` on a fresh connection; resolves with how it ended (acknowledged, refused, closed). */
async function publishOnce(options: HostileOptions, payload: Buffer, gatewayTuid: string): Promise<string> {
  const client = await gatewayClient(options);
  try {
    const outcome = await Promise.race([
      client.publishAsync(`thingdesk/${options.organizationId}/up/${gatewayTuid}`, payload, { qos: 1 }).then(
        (packet) => `acknowledged ${(packet as { reasonCode?: number } | undefined)?.reasonCode ?? 0}`,
        (error: Error) => `refused: ${error.message.slice(0, 40)}`,
      ),
      new Promise<string>((resolve) => client.once('close', () => resolve('connection closed'))),
      sleep(30_000).then(() => 'no answer in 30 s'),
    ]);
    return outcome;
  } finally {
    await client.endAsync(true).catch(() => undefined);
  }
}

/** 1 MiB in one message: over the default maximum packet size. */
function oversizeUplink(options: HostileOptions): Promise<string> {
  const message = {
    tsmId: 12100,
    tsmEv: 10,
    tsmTs: Math.floor(Date.now() / 1000),
    tsmTuid: 'HOSTILE-BIG',
    tsmGw: 'HOSTILE-GW',
    note: 'x'.repeat(1024 * 1024),
  };
  return publishOnce(options, Buffer.from(JSON.stringify([message])), 'HOSTILE-GW');
}

const poison = Buffer.from(`[${new Array(1_000_000).fill('0').join(',')}]`);

/** A 2 MB array of a million zeros: what once ended the SQLite writer thread. */
function poisonUplink(options: HostileOptions): Promise<string> {
  return publishOnce(options, poison, 'HOSTILE-GW');
}

/**
 * A graphql-ws connection that opens many `messages` subscriptions and then stops reading its socket. The
 * platform should refuse subscriptions past its cap and close the connection once its send buffer is full;
 * resolves with how the connection ended.
 */
function unreadWebSocket(options: HostileOptions, running: () => boolean): Promise<string> {
  return new Promise((resolve) => {
    const url = `${options.httpBase.replace(/^http/, 'ws')}/v1/graphql`;
    const ws = new WebSocket(url, 'graphql-transport-ws', { localAddress: hostileAddress });
    let refused = 0;
    let stillOpen = false;
    const done = (outcome: string) => {
      clearInterval(watch);
      resolve(outcome);
    };
    // The run may end while the platform still holds the connection open: then the attacker closes it itself.
    const watch = setInterval(() => {
      if (!running()) ws.terminate();
    }, 250);
    ws.on('error', () => undefined);
    ws.on('close', (code) =>
      done(stillOpen ? 'still open when read again' : `closed ${code}${refused ? ` after ${refused} refusals` : ''}`),
    );
    ws.on('open', () =>
      ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${options.accessToken()}` } })),
    );
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string };
      if (message.type === 'error') refused += 1;
      if (message.type !== 'connection_ack') return;
      for (let id = 1; id <= unreadSubscriptions; id++) {
        ws.send(JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: 'subscription { messages }' } }));
      }
      // Stop reading: what the platform sends piles up in its own buffers, unless it bounds them. After a while the
      // socket is read again, only to learn whether the platform closed it meanwhile (the close frame waits behind
      // the unread data); then the attack starts over on a new connection.
      const socket = (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      socket.pause();
      setTimeout(() => {
        socket.resume();
        setTimeout(() => {
          if (ws.readyState === WebSocket.CLOSED) return;
          stillOpen = true;
          ws.terminate();
        }, 2000);
      }, holdUnreadMs);
    });
  });
}
