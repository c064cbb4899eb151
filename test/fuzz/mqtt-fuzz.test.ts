/**
 * Property-based fuzzing of MQTT uplinks (issue 8): random bytes, truncated JSON, huge arrays, wrong envelope
 * types, unknown ids, nested junk, NUL characters and raw numbers like 1e309, published with QoS 1 through the
 * embedded broker as the bootstrap gateway. Every publish is acknowledged on a connection that stays open; every
 * message received is stored, dead-lettered or counted as a duplicate; what was stored reads back over REST and
 * GraphQL without a 5xx; health and readiness stay up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { MqttClient } from 'mqtt';
import { cleanupStores } from '../helpers/databases.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { closeMqttClients, connectMqtt } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { StoreSnapshotter } from '../helpers/store-snapshot.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';
import { assertProperty } from './fuzz-settings.js';
import { assertNoInternals, assertRestResponse } from './invariants.js';
import { fuzzTuids, gatewaySegment, uplinkPayload } from './mqtt-payloads.js';

after(cleanupStores);
after(closeMqttClients);

const counters = ['received', 'stored', 'dead_lettered', 'duplicates'] as const;
type Counts = Record<(typeof counters)[number], number>;

/** How many messages the platform counts for a payload: an array's elements, else one (SPEC section 5). */
function expectedReceived(payload: string | Uint8Array): number {
  const text = typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8');
  try {
    const parsed: unknown = JSON.parse(text);
    // Past UPLINK_MAX_MESSAGES (1000) the rest of an array counts once, as the one dead letter that holds it.
    return Array.isArray(parsed) ? Math.min(parsed.length, 1000) + (parsed.length > 1000 ? 1 : 0) : 1;
  } catch {
    return 1;
  }
}

function describePayload(topic: string, payload: string | Uint8Array): string {
  const text = typeof payload === 'string' ? payload : `bytes ${Buffer.from(payload).toString('hex')}`;
  return `${JSON.stringify(topic.slice(0, 200))} payload(${text.length})=${JSON.stringify(text.slice(0, 400))}`;
}

describe('MQTT uplink fuzzing (issue 8)', () => {
  let server: TestApp;
  let gateway: MqttClient;
  let rest: RestClient;
  let graphql: GraphqlClient;
  let store: StoreSnapshotter;
  let closed = false;

  async function ingestCounts(): Promise<Counts> {
    const text = await (await fetch(server.url('/metrics'))).text();
    const read = (name: string) => Number(new RegExp(`^thingdesk_ingest_${name}_total (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    return { received: read('received'), stored: read('stored'), dead_lettered: read('dead_lettered'), duplicates: read('duplicates') };
  }

  before(async () => {
    server = await startTestApp({ RATE_LIMIT_PER_TOKEN: '10000000', RATE_LIMIT_PER_ADDRESS: '10000000' });
    gateway = await connectMqtt(server.mqttUrl, {
      username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
      password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
    });
    gateway.on('close', () => (closed = true));
    rest = new RestClient(server);
    graphql = new GraphqlClient(server);
    await graphql.login();
    store = new StoreSnapshotter(server.config.databaseUrl, ['messages', 'dead_letters']);
  });
  after(async () => {
    store?.close();
    await closeMqttClients();
    await server?.stop();
  });

  /** What the stored messages look like from outside: the summary and messages of each fuzz thing, over REST and GraphQL. */
  async function assertReadable(context: string): Promise<void> {
    for (const tuid of fuzzTuids) {
      for (const path of [`/things/${tuid}`, `/things/${tuid}/messages?limit=20`]) {
        const response = await rest.get(path);
        assertRestResponse(response, `GET ${path} after ${context}`);
      }
    }
    const response = await graphql.request(
      'query Q($tuid: ID!) { thing(tuid: $tuid) { tuid batteryLevel timestamp location { lat lon } version gatewayTuid } messages(tuid: $tuid, limit: 20) }',
      { tuid: fuzzTuids[0] },
    );
    assert.equal(response.status, 200, `GraphQL read after ${context}`);
    for (const error of response.body.errors ?? []) {
      assert.notEqual(error.extensions?.code, 'INTERNAL_SERVER_ERROR', `GraphQL read after ${context}: ${JSON.stringify(error)}`);
      assertNoInternals(error.message, context);
    }
  }

  test('every payload is acknowledged, and received = stored + dead-lettered + duplicates', async () => {
    await assertProperty(
      fc.asyncProperty(gatewaySegment, uplinkPayload, fc.boolean(), async (segment, payload, again) => {
        const topic = `thingdesk/acme/up/${segment}`;
        const context = describePayload(topic, payload);
        const before = await ingestCounts();
        const rowsBefore = { messages: store.count('messages'), dead_letters: store.count('dead_letters') };
        const publishes = again ? 2 : 1;
        for (let i = 0; i < publishes; i += 1) {
          // QoS 1: the broker acknowledges only after the commit, so the counters are final when this resolves.
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            gateway.publishAsync(topic, Buffer.from(payload), { qos: 1 }),
            new Promise((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`no PUBACK within 20 s: ${context}`)), 20_000))),
          ]).finally(() => clearTimeout(timer));
        }
        assert.ok(gateway.connected && !closed, `the broker closed the gateway's connection: ${context}`);
        const after = await ingestCounts();
        const delta = Object.fromEntries(counters.map((name) => [name, after[name] - before[name]])) as Counts;
        assert.equal(delta.received, expectedReceived(payload) * publishes, `received ${JSON.stringify(delta)}: ${context}`);
        assert.equal(delta.received, delta.stored + delta.dead_lettered + delta.duplicates, `counts ${JSON.stringify(delta)}: ${context}`);
        // A redelivered payload adds no message: everything readable in it was a duplicate the second time.
        assert.equal(
          store.count('messages') - rowsBefore.messages,
          delta.stored,
          `messages rows vs stored ${JSON.stringify(delta)}: ${context}`,
        );
        assert.equal(
          store.count('dead_letters') - rowsBefore.dead_letters,
          delta.dead_lettered,
          `dead_letters rows vs dead-lettered ${JSON.stringify(delta)}: ${context}`,
        );
        await assertReadable(context);
      }),
    );
  });

  test('dead letters say why, and the platform stays healthy', async () => {
    const deadLetters = await server.app.store.deadLetters.list({ organizationId: 'acme', limit: 1000 });
    assert.ok(deadLetters.length > 0, 'the fuzzer produced no dead letter at all');
    for (const letter of deadLetters) {
      assert.ok(letter.reason.length > 0, JSON.stringify(letter).slice(0, 300));
      assert.ok(!letter.payload.includes('\u0000'), 'NUL characters are escaped in dead letters');
    }
    for (const path of ['/healthz', '/readyz']) assert.equal((await fetch(server.url(path))).status, 200, path);
    // A new connection: a failed property may have left the fuzzer's own one closed.
    const fresh = await connectMqtt(server.mqttUrl, {
      username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
      password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
    });
    await fresh.publishAsync(
      'thingdesk/acme/up/GW-1',
      JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: 1_900_000_000, tsmTuid: 'MQ-AFTER', batl: 77 }]),
      { qos: 1 },
    );
    const thing = await rest.get('/things/MQ-AFTER');
    assert.equal(thing.status, 200, thing.text);
    assert.equal(thing.body.data.battery_level, 77);
  });
});
