/**
 * Three instances in one shared group on PostgreSQL and the external broker act as one platform (issue 13): each
 * uplink is stored once by exactly one of them, the data feed carries each stored message once, an alert opened
 * by whichever instance stored the message is seen through every instance, and a command sent through one
 * instance is matched to its echo by whichever instance consumed the echo.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { connectAsync } from 'mqtt';
import pg from 'pg';
import { metric, slotsHeld } from '../helpers/app-metrics.js';
import { forgetConsumerSessions } from '../helpers/consumer-sessions.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../helpers/databases.js';
import { closeMqttClients, collectMessages, connectMqtt, eventually } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const brokerUrl = process.env.TEST_MQTT_URL;
const skip =
  postgresSkipReason ?? (brokerUrl ? undefined : 'three-instance test skipped: TEST_MQTT_URL is not set (e.g. mqtt://127.0.0.1:1883)');
const slots = 4;

after(cleanupStores);
after(closeMqttClients);

async function storedCount(databaseUrl: string, tuidPrefix: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>('select count(*) as n from messages where tuid like $1', [`${tuidPrefix}%`]);
    return Number(result.rows[0]!.n);
  } finally {
    await client.end();
  }
}

describe('scale-out: three instances, one platform', { skip }, () => {
  test(
    'uplinks stored once across three instances, the feed once per message, alerts and commands through any instance',
    { timeout: 90_000 },
    async () => {
      const run = randomBytes(4).toString('hex');
      const org = `three-${run}`;
      const group = `three-${run}`;
      const databaseUrl = await createPostgresUrl();
      const instances: TestApp[] = [];
      try {
        for (const name of ['a', 'b', 'c']) {
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
        }
        // Four slots over three instances: every instance holds at least one once the leases settle.
        await eventually(
          async () => {
            const held = await Promise.all(instances.map(slotsHeld));
            return held.every((count) => count >= 1) && held.reduce((sum, count) => sum + count, 0) === slots ? held : undefined;
          },
          20_000,
          'the slots to be spread over the three instances',
        );

        const watcher = await connectMqtt(brokerUrl!, { protocolVersion: 5 });
        const watched = collectMessages(watcher);
        await watcher.subscribeAsync([`thingdesk/${org}/data/#`, `thingdesk/${org}/down/+`], { qos: 1 });
        const gateway = await connectAsync(brokerUrl!, { protocolVersion: 5, reconnectPeriod: 0 });
        const t0 = 1_792_000_000;
        const total = 900;
        const lowBattery = `${org}-D0`;
        try {
          await Promise.all(
            Array.from({ length: total }, (_, seq) => {
              const tuid = `${org}-D${seq % 30}`;
              const message = { tsmId: 1110, tsmEv: 10, tsmTs: t0 + seq, tsmTuid: tuid, batl: tuid === lowBattery ? 5 : 60 };
              return gateway.publishAsync(`thingdesk/${org}/up/GW-${seq % 3}`, JSON.stringify([message]), { qos: 1 });
            }),
          );
          await eventually(
            async () => ((await storedCount(databaseUrl, `${org}-D`)) >= total ? true : undefined),
            30_000,
            `${total} uplinks stored`,
          );
          await new Promise((resolve) => setTimeout(resolve, 500));
          assert.equal(await storedCount(databaseUrl, `${org}-D`), total, 'no uplink stored twice');
          const storedBy = await Promise.all(instances.map((instance) => metric(instance, 'thingdesk_ingest_stored_total')));
          assert.equal(
            storedBy.reduce((sum, count) => sum + count, 0),
            total,
            `each uplink stored by exactly one instance: ${storedBy.join(' + ')}`,
          );
          assert.ok(
            storedBy.every((count) => count > 0),
            `every instance took a share: ${storedBy.join(' + ')}`,
          );

          // The data feed: each stored message once, whichever instance stored it.
          const feedOf = () => watched.received.filter((message) => message.topic.startsWith(`thingdesk/${org}/data/`));
          await eventually(() => (feedOf().length >= total ? true : undefined), 20_000, 'the data feed of every message');
          await new Promise((resolve) => setTimeout(resolve, 500));
          const feedTimes = feedOf().map((message) => (JSON.parse(message.payload) as { tsmTs: number }).tsmTs - t0);
          assert.equal(feedTimes.length, total, 'no message in the feed twice');
          assert.deepEqual(
            [...new Set(feedTimes)].sort((x, y) => x - y),
            Array.from({ length: total }, (_, i) => i),
          );

          // The battery alert was opened by whichever instance stored the low reading; every instance shows it.
          for (const instance of instances) {
            const rest = new RestClient(instance);
            await eventually(
              async () => ((await rest.get('/things/alerts')).body?.data?.alerting_tuids?.includes(lowBattery) ? true : undefined),
              10_000,
              'the battery alert seen through every instance',
            );
          }

          // A command sent through one instance; its echo is consumed by any; its status read through a third.
          const target = `${org}-D1`;
          const command = { tsmId: 1500, tsmEv: 30, transactionId: 4242, measurementInterval: 60, reportInterval: 300 };
          const sent = await new RestClient(instances[0]!).post(`/things/${target}/commands`, [command]);
          assert.equal(sent.status, 200, sent.text);
          await eventually(
            () => (watched.received.some((message) => message.topic === `thingdesk/${org}/down/${target}`) ? true : undefined),
            10_000,
            'the downlink',
          );
          const echo = { ...command, tsmEv: 31, tsmTs: t0 + total + 1, tsmTuid: target, tsmGw: 'GW-1' };
          await gateway.publishAsync(`thingdesk/${org}/up/GW-1`, JSON.stringify([echo]), { qos: 1 });
          const reader = new RestClient(instances[2]!);
          await eventually(
            async () => {
              const history = (await reader.get(`/things/${target}/commands`)).body?.data as
                { commands: { transactionId: number; status: string }[] }[] | undefined;
              return history?.flatMap((record) => record.commands).find((entry) => entry.transactionId === 4242)?.status === 'applied'
                ? true
                : undefined;
            },
            10_000,
            'the command applied, seen through another instance',
          );
        } finally {
          await gateway.endAsync();
        }
      } finally {
        for (const instance of instances) await instance.stop();
        await forgetConsumerSessions(brokerUrl!, group, slots);
      }
    },
  );
});
