/**
 * Live message streams see the whole deployment (issue 18): with two or three instances sharing the uplinks of an external
 * broker, a `messages` subscription on either receives every uplink, whichever instance stored it, and none twice.
 * While an instance's link to the others is down, its live streams say so (closed, subscriptions refused) instead
 * of going on with a part of the fleet.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { connectAsync } from 'mqtt';
import { metric, slotsHeld } from '../helpers/app-metrics.js';
import { forgetConsumerSessions } from '../helpers/consumer-sessions.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../helpers/databases.js';
import { signInAs } from '../helpers/graphql-users.js';
import { LiveSocket, closedWithin } from '../helpers/live-socket.js';
import { closeMqttClients, eventually } from '../helpers/mqtt-clients.js';
import { OwnMosquitto, ownMosquittoSkipReason } from '../helpers/own-mosquitto.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const brokerUrl = process.env.TEST_MQTT_URL;
const twoInstancesSkip =
  postgresSkipReason ?? (brokerUrl ? undefined : 'message relay test skipped: TEST_MQTT_URL is not set (e.g. mqtt://127.0.0.1:1883)');
const subscription = 'subscription { messages }';

after(cleanupStores);
after(closeMqttClients);

async function subscribed(server: TestApp, organizationId: string): Promise<LiveSocket> {
  const { client } = await signInAs(server, 'Viewer', { organizationId, organizationName: organizationId });
  const socket = new LiveSocket(server, client.accessToken!);
  await socket.ready;
  socket.subscribe('m', subscription);
  return socket;
}

const receivedTimes = (socket: LiveSocket) =>
  socket.of('m').flatMap((m) => (m.type === 'next' ? [(m.payload as { data: { messages: { tsmTs: number } } }).data.messages.tsmTs] : []));

describe('message relay: instances on PostgreSQL and the shared broker', { skip: twoInstancesSkip }, () => {
  for (const count of [2, 3])
    test(
      `a subscription on each of ${count} instances receives every uplink once, whichever instance stored it`,
      { timeout: 90_000 },
      async () => {
        const run = randomBytes(4).toString('hex');
        const org = `relay-${run}`;
        const group = `relay-${run}`;
        const slots = count;
        const databaseUrl = await createPostgresUrl();
        const instances: TestApp[] = [];
        const sockets: LiveSocket[] = [];
        try {
          for (const name of ['a', 'b', 'c'].slice(0, count))
            instances.push(
              await startTestApp({
                DATABASE_URL: databaseUrl,
                MQTT_URL: brokerUrl!,
                MQTT_SHARED_GROUP: group,
                MQTT_CONSUMER_SLOTS: String(slots),
                MQTT_CLIENT_ID: `${name}-${run}`,
                BOOTSTRAP_ORG: org,
              }),
            );
          await eventually(
            async () => ((await Promise.all(instances.map(slotsHeld))).every((held) => held === 1) ? true : undefined),
            20_000,
            'one slot on each instance',
          );
          for (const instance of instances) sockets.push(await subscribed(instance, org));
          // The subscriptions are registered once the server has answered nothing for them for a moment.
          await new Promise((resolve) => setTimeout(resolve, 300));

          const total = 1000;
          const t0 = 1_793_000_000;
          const gateway = await connectAsync(brokerUrl!, { protocolVersion: 5, reconnectPeriod: 0 });
          try {
            await Promise.all(
              Array.from({ length: total }, (_, seq) => {
                const message = { tsmId: 1110, tsmEv: 10, tsmTs: t0 + seq, tsmTuid: `${org}-D${seq % 20}`, batl: 60 };
                return gateway.publishAsync(`thingdesk/${org}/up/GW-${seq % 4}`, JSON.stringify([message]), { qos: 1 });
              }),
            );
          } finally {
            await gateway.endAsync();
          }
          for (const socket of sockets) await socket.waitUntil(() => receivedTimes(socket).length >= total, 30_000);
          await new Promise((resolve) => setTimeout(resolve, 500));

          const storedBy = await Promise.all(instances.map((instance) => metric(instance, 'thingdesk_ingest_stored_total')));
          assert.ok(
            storedBy.every((count) => count > 0),
            `every instance stored a share, so each stream needed the others': ${storedBy.join(' + ')}`,
          );
          for (const [index, socket] of sockets.entries()) {
            const times = receivedTimes(socket).map((ts) => ts - t0);
            assert.equal(times.length, total, `instance ${index}: no message twice`);
            assert.deepEqual(
              [...new Set(times)].sort((x, y) => x - y),
              Array.from({ length: total }, (_, i) => i),
              `instance ${index}: every message`,
            );
          }
        } finally {
          for (const socket of sockets) socket.close();
          for (const instance of instances) await instance.stop();
          await forgetConsumerSessions(brokerUrl!, group, slots);
        }
      },
    );
});

describe('message relay: a lost link is told, not hidden', { skip: ownMosquittoSkipReason }, () => {
  test(
    'live streams close with 1013 when the relay link drops, subscriptions are refused until it is back, then accepted',
    { timeout: 60_000 },
    async () => {
      let broker = await OwnMosquitto.start(['persistence false']);
      const group = `gap-${randomBytes(4).toString('hex')}`;
      const server = await startTestApp({ MQTT_URL: broker.url, MQTT_SHARED_GROUP: group, MQTT_CONSUMER_SLOTS: '1' });
      try {
        const socket = await subscribed(server, 'acme');
        await new Promise((resolve) => setTimeout(resolve, 200));
        await broker.stop();

        const closed = await closedWithin(socket, 10_000);
        assert.equal(closed?.code, 1013, `closed as "try again later": ${JSON.stringify(closed)}`);
        assert.match(closed.reason, /live events may have been missed/);

        const { client } = await signInAs(server, 'Viewer');
        const late = new LiveSocket(server, client.accessToken!);
        await late.ready;
        late.subscribe('m', subscription);
        await late.waitUntil(() => late.of('m').some((m) => m.type === 'error'));
        // SPEC section 4 fixes GraphQL's codes: an outage is INTERNAL_SERVER_ERROR, marked retryable, with the reason.
        const refusal = JSON.stringify(late.of('m'));
        assert.match(refusal, /"retryable":true/);
        assert.match(refusal, /broker link down/);
        late.close();

        // The broker is back: the relay reconnects and subscribes again, and live streams are offered again.
        broker = await OwnMosquitto.start(['persistence false'], { port: broker.port });
        const again = new LiveSocket(server, client.accessToken!);
        await again.ready;
        let attempt = 0;
        const accepted = await eventually(
          async () => {
            const id = `again-${++attempt}`;
            again.subscribe(id, subscription);
            await new Promise((resolve) => setTimeout(resolve, 300));
            return again.of(id).some((m) => m.type === 'error') ? undefined : id;
          },
          20_000,
          'a subscription accepted once the link is back',
        );
        const gateway = await connectAsync(broker.url, { protocolVersion: 5, reconnectPeriod: 0 });
        await gateway.publishAsync(
          'thingdesk/acme/up/GW-1',
          JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: 1_793_000_000, tsmTuid: 'GAP-1', batl: 60 }]),
          {
            qos: 1,
          },
        );
        await gateway.endAsync();
        await again.waitUntil(() => again.of(accepted).some((m) => m.type === 'next'), 10_000);
        again.close();
      } finally {
        await server.stop();
        await broker.stop();
      }
    },
  );
});
