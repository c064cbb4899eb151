/**
 * Live streams in stored order per thing across instances (issue 18): two instances store consecutive messages of
 * one thing, one of them relays late (a slow link to the broker), and a subscriber on a third instance still
 * receives them in the order they were committed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { connectAsync } from 'mqtt';
import pg from 'pg';
import { metric, slotsHeld } from '../helpers/app-metrics.js';
import { forgetConsumerSessions } from '../helpers/consumer-sessions.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../helpers/databases.js';
import { signInAs } from '../helpers/graphql-users.js';
import { LiveSocket } from '../helpers/live-socket.js';
import { closeMqttClients, eventually } from '../helpers/mqtt-clients.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const brokerUrl = process.env.TEST_MQTT_URL;
const skip =
  postgresSkipReason ?? (brokerUrl ? undefined : 'relay order test skipped: TEST_MQTT_URL is not set (e.g. mqtt://127.0.0.1:1883)');

after(cleanupStores);
after(closeMqttClients);

/** How late the slow instance's publishes (its relayed batches among them) reach the broker. */
const slowLinkMs = 400;

describe('message relay: stored order per thing', { skip }, () => {
  test(
    "a subscriber on a third instance receives a thing's messages in commit order, though two instances stored them and one relays late",
    { timeout: 90_000 },
    async () => {
      const run = randomBytes(4).toString('hex');
      const org = `order-${run}`;
      const group = `order-${run}`;
      const tuid = `${org}-T1`;
      const slots = 2;
      const databaseUrl = await createPostgresUrl();
      const slowLink = await TcpProxy.forUrl(brokerUrl!, 1883);
      slowLink.delayToServerMs = slowLinkMs;
      const instances: TestApp[] = [];
      const db = new pg.Client({ connectionString: databaseUrl });
      let socket: LiveSocket | undefined;
      try {
        // Slots go to the instances in the order of their ids: `a` and `b` consume, `z` holds none and only follows.
        for (const [name, url] of [
          ['a', slowLink.proxiedUrl(brokerUrl!)],
          ['b', brokerUrl!],
          ['z', brokerUrl!],
        ] as const)
          instances.push(
            await startTestApp({
              DATABASE_URL: databaseUrl,
              MQTT_URL: url,
              MQTT_SHARED_GROUP: group,
              MQTT_CONSUMER_SLOTS: String(slots),
              MQTT_CLIENT_ID: `${name}-${run}`,
              BOOTSTRAP_ORG: org,
            }),
          );
        await eventually(
          async () => ((await Promise.all(instances.map(slotsHeld))).join() === '1,1,0' ? true : undefined),
          30_000,
          'one slot on a and b, none on z',
        );
        const { client } = await signInAs(instances[2]!, 'Viewer', { organizationId: org, organizationName: org });
        socket = new LiveSocket(instances[2]!, client.accessToken!);
        await socket.ready;
        socket.subscribe('m', `subscription { messages(tuid: "${tuid}") }`);
        await new Promise((resolve) => setTimeout(resolve, 300));

        // One message at a time, each published once the one before is committed: commit order is tsmTs order.
        await db.connect();
        const stored = async () =>
          Number((await db.query<{ n: string }>('select count(*) as n from messages where tuid = $1', [tuid])).rows[0]!.n);
        const total = 16;
        const t0 = 1_793_000_000;
        const gateway = await connectAsync(brokerUrl!, { protocolVersion: 5, reconnectPeriod: 0 });
        try {
          for (let i = 0; i < total; i++) {
            const message = { tsmId: 1110, tsmEv: 10, tsmTs: t0 + i, tsmTuid: tuid, batl: 60 };
            await gateway.publishAsync(`thingdesk/${org}/up/GW-1`, JSON.stringify([message]), { qos: 1 });
            await eventually(async () => ((await stored()) === i + 1 ? true : undefined), 10_000, `message ${i} committed`);
          }
        } finally {
          await gateway.endAsync();
        }

        const received = () =>
          socket!
            .of('m')
            .flatMap((m) => (m.type === 'next' ? [(m.payload as { data: { messages: { tsmTs: number } } }).data.messages.tsmTs - t0] : []));
        await socket.waitUntil(() => received().length >= total, 20_000);
        await new Promise((resolve) => setTimeout(resolve, slowLinkMs + 200));

        const storedBy = await Promise.all(instances.map((instance) => metric(instance, 'thingdesk_ingest_stored_total')));
        assert.ok(
          storedBy[0]! > 0 && storedBy[1]! > 0 && storedBy[2] === 0,
          `a and b stored the thing's messages between them: ${storedBy.join(' + ')}`,
        );
        assert.deepEqual(
          received(),
          Array.from({ length: total }, (_, i) => i),
          'every message once, in the order committed',
        );
      } finally {
        socket?.close();
        await db.end().catch(() => undefined);
        for (const instance of instances) await instance.stop();
        await slowLink.close();
        await forgetConsumerSessions(brokerUrl!, group, slots);
      }
    },
  );
});
