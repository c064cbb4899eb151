/**
 * Relay batches are not taken on faith (issue 32, finding 6). Anyone who could publish on
 * `thingdesk-cluster/messages/+` (a misconfigured broker, a leaked platform credential) injected messages into any
 * organization's live streams, and a forged seq of 2^52 silenced a thing. A batch is now taken only when signed with
 * the deployment's key (shared through the store), for the topic it came on, from the instance that topic names,
 * live in the register, and recent; a far-off seq restarts the thing's order instead of silencing it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { connectAsync, type MqttClient } from 'mqtt';
import { slotsHeld } from '../helpers/app-metrics.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../helpers/databases.js';
import { signInAs } from '../helpers/graphql-users.js';
import { LiveSocket } from '../helpers/live-socket.js';
import { closeMqttClients, eventually } from '../helpers/mqtt-clients.js';
import { OwnMosquitto, ownMosquittoSkipReason } from '../helpers/own-mosquitto.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import type { StoredMessage } from '../../src/domain/messages/message-types.js';
import { relayKeyName } from '../../src/integration/message-relay.js';
import { encodeBatches } from '../../src/integration/relay-batch.js';
import { clusterMessagesTopic } from '../../src/mqtt/topics.js';

const skip = postgresSkipReason ?? ownMosquittoSkipReason;

after(cleanupStores);
after(closeMqttClients);

const t0 = 1_793_000_000;
const received = (socket: LiveSocket) =>
  socket
    .of('m')
    .flatMap((m) => (m.type === 'next' ? [(m.payload as { data: { messages: { tsmTs: number } } }).data.messages.tsmTs - t0] : []));

function forgedMessage(organizationId: string, tuid: string, offset: number, seq?: number): StoredMessage {
  const body = JSON.stringify({ tsmId: 1110, tsmEv: 10, tsmTs: t0 + offset, tsmTuid: tuid, batl: 1 });
  return {
    organizationId,
    tuid,
    tsmId: 1110,
    tsmEv: 10,
    tsmTs: t0 + offset,
    gatewayTuid: 'GW-1',
    fingerprint: randomBytes(8).toString('hex'),
    groupId: null,
    receivedAt: Date.now(),
    body,
    message: {},
    problems: [],
    ...(seq === undefined ? {} : { seq, previousAt: Date.now() - 60_000 }),
  };
}

/** The batch format before batches were signed: what a stranger who read the code would publish. */
function unsignedBatch(origin: string, message: StoredMessage): string {
  const m = message;
  const envelope = [
    m.organizationId,
    m.tuid,
    m.tsmId,
    m.tsmEv,
    m.tsmTs,
    m.gatewayTuid,
    m.fingerprint,
    null,
    m.receivedAt,
    m.body.length,
    0,
    0,
    null,
  ];
  return `${JSON.stringify({ o: origin, m: [envelope] })}\n${m.body}`;
}

async function refusedOn(instance: TestApp): Promise<number> {
  const text = await instance.app.metrics.registry.getSingleMetricAsString('thingdesk_live_relay');
  return Number(/figure="refused"\} (\d+)/.exec(text)?.[1] ?? 0);
}

describe('message relay: only signed batches of live instances on their own topic', { skip }, () => {
  test(
    'forged batches (unsigned, wrong key, dead instance, wrong topic, replayed) reach no live stream; a forged seq of 2^52 does not stop a thing',
    { timeout: 120_000 },
    async () => {
      const run = randomBytes(4).toString('hex');
      const org = `trust-${run}`;
      const broker = await OwnMosquitto.start(['persistence false']);
      const databaseUrl = await createPostgresUrl();
      const instances: TestApp[] = [];
      let socket: LiveSocket | undefined;
      let forger: MqttClient | undefined;
      let gateway: MqttClient | undefined;
      try {
        for (const name of ['a', 'b'])
          instances.push(
            await startTestApp({
              DATABASE_URL: databaseUrl,
              MQTT_URL: broker.url,
              MQTT_SHARED_GROUP: `trust-${run}`,
              MQTT_CONSUMER_SLOTS: '1',
              MQTT_CLIENT_ID: `${name}-${run}`,
              BOOTSTRAP_ORG: org,
            }),
          );
        const [a, b] = instances as [TestApp, TestApp];
        await eventually(
          async () => ((await Promise.all(instances.map(slotsHeld))).join() === '1,0' ? true : undefined),
          30_000,
          'the slot on a',
        );
        const { client } = await signInAs(b, 'Viewer', { organizationId: org, organizationName: org });
        socket = new LiveSocket(b, client.accessToken!);
        await socket.ready;
        socket.subscribe('m', 'subscription { messages }');
        await new Promise((resolve) => setTimeout(resolve, 300));

        gateway = await connectAsync(broker.url, { protocolVersion: 5, reconnectPeriod: 0 });
        const uplink = (tuid: string, offset: number) =>
          gateway!.publishAsync(
            `thingdesk/${org}/up/GW-1`,
            JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: t0 + offset, tsmTuid: tuid, batl: 60 }]),
            { qos: 1 },
          );
        const live = socket;
        const seen = async (offsets: number[]) => live.waitUntil(() => offsets.every((offset) => received(live).includes(offset)), 20_000);

        // A plain MQTT client that may publish on the relay topics (the broker lets anyone here).
        forger = await connectAsync(broker.url, { protocolVersion: 5, reconnectPeriod: 0 });
        const publishAll = async (batches: [string, string | Buffer][]) => {
          for (const [topic, payload] of batches) await forger!.publishAsync(topic, payload, { qos: 1 });
        };
        const signed = (signingKey: Buffer, topic: string, origin: string, message: StoredMessage, sentAt = Date.now()) =>
          encodeBatches(signingKey, topic, { origin, sentAt }, [message], 1_048_576).payloads[0]!.bytes;
        const aTopic = clusterMessagesTopic(a.app.instanceId);

        // Without the key: a batch as the relay used to send them, and one signed with a key of the forger's own.
        await publishAll([
          [aTopic, unsignedBatch(a.app.instanceId, forgedMessage(org, `${org}-F`, 100))],
          [aTopic, signed(randomBytes(32), aTopic, a.app.instanceId, forgedMessage(org, `${org}-F`, 101))],
        ]);
        // Then a genuine uplink, stored by a and relayed: the stream is alive and would have shown the forged ones.
        await uplink(`${org}-G`, 1);
        await seen([1]);
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.deepEqual(received(socket), [1], 'no batch without the key reached the live stream');

        // With the key (read from the store): from an instance that is registered but silent, from a live one but
        // on another topic, and a recording of ten minutes ago.
        const key = await a.app.store.clusterSecrets.getOrCreate(relayKeyName, Date.now());
        const dead = `dead-${run}`;
        await a.app.store.instances.heartbeat({
          ...{ id: dead, version: '0.0.0', host: 'gone', startedAt: Date.now() - 120_000 },
          ...{ heartbeatAt: Date.now() - 60_000, details: { mqtt: 'external', liveSubscriptions: 0 } },
        });
        const elsewhere = clusterMessagesTopic(`x-${run}`);
        await publishAll([
          [clusterMessagesTopic(dead), signed(key, clusterMessagesTopic(dead), dead, forgedMessage(org, `${org}-F`, 102))],
          [elsewhere, signed(key, elsewhere, a.app.instanceId, forgedMessage(org, `${org}-F`, 103))],
          [aTopic, signed(key, aTopic, a.app.instanceId, forgedMessage(org, `${org}-F`, 104), Date.now() - 10 * 60_000)],
        ]);
        await uplink(`${org}-G`, 5);
        await seen([5]);
        // A batch of an origin not (yet) known to be live waits up to 5 s for the register to say so.
        await new Promise((resolve) => setTimeout(resolve, 6_000));
        assert.deepEqual(received(socket), [1, 5], 'only the genuine uplinks reached the live stream');
        assert.ok((await refusedOn(b)) >= 5, `every forged batch refused and counted: ${await refusedOn(b)}`);

        // Whoever holds the key and a live instance's topic still cannot silence a thing with a far-off seq.
        const thing = `${org}-S`;
        await uplink(thing, 2);
        await seen([2]);
        await forger.publishAsync(aTopic, signed(key, aTopic, a.app.instanceId, forgedMessage(org, thing, 200, 2 ** 52)), { qos: 1 });
        await seen([200]);
        await uplink(thing, 3);
        await uplink(thing, 4);
        await seen([3, 4]);
      } finally {
        socket?.close();
        await forger?.endAsync().catch(() => undefined);
        await gateway?.endAsync().catch(() => undefined);
        for (const instance of instances) await instance.stop();
        await broker.stop();
      }
    },
  );
});
