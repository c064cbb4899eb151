import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { metric, slotsHeld } from '../helpers/app-metrics.js';
import { forgetConsumerSessions } from '../helpers/consumer-sessions.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../helpers/databases.js';
import { closeMqttClients, collectMessages, connectMqtt, eventually } from '../helpers/mqtt-clients.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const brokerUrl = process.env.TEST_MQTT_URL;
const skip = brokerUrl ? undefined : 'external broker tests skipped: TEST_MQTT_URL is not set (e.g. mqtt://127.0.0.1:1883)';

after(cleanupStores);
after(closeMqttClients);

/**
 * The broker is shared with other test files and runs: every test uses its own organization, client ids and
 * shared-subscription group, and removes its persistent sessions afterwards.
 */
function uniqueIds(instances: number) {
  const run = randomBytes(4).toString('hex');
  return {
    org: `ext-${run}`,
    group: `test-${run}`,
    clientIds: Array.from({ length: instances }, (_, i) => `thingdesk-test-${run}-${i}`),
  };
}

async function startExternalInstance(env: Record<string, string>, ids: ReturnType<typeof uniqueIds>, index: number): Promise<TestApp> {
  return startTestApp({
    ...env,
    MQTT_URL: brokerUrl!,
    MQTT_CLIENT_ID: ids.clientIds[index]!,
    MQTT_SHARED_GROUP: ids.group,
    MQTT_CONSUMER_SLOTS: String(slots),
  });
}

const slots = 4;

/** Connects once with a clean session under each consumer slot's client id, so the broker forgets them. */
const forgetSessions = (ids: ReturnType<typeof uniqueIds>) => forgetConsumerSessions(brokerUrl!, ids.group, slots);

describe('external broker mode', { skip }, () => {
  test('uplinks are ingested through the shared subscription; downlinks and the data feed go out through the broker', async () => {
    const ids = uniqueIds(1);
    const server = await startExternalInstance({ BOOTSTRAP_ORG: ids.org }, ids, 0);
    try {
      assert.equal(server.app.mqtt.mode, 'external');
      const publisher = await connectMqtt(brokerUrl!, { protocolVersion: 5 });
      const feed = await connectMqtt(brokerUrl!, { protocolVersion: 5 });
      const inbox = collectMessages(feed);
      await feed.subscribeAsync([`thingdesk/${ids.org}/data/#`, `thingdesk/${ids.org}/down/+`], { qos: 1 });
      await publisher.publishAsync(
        `thingdesk/${ids.org}/up/GW-X`,
        JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: `${ids.org}-T1`, batl: 42 }]),
        { qos: 1 },
      );
      await eventually(
        async () => ((await server.app.store.messages.count(`${ids.org}-T1`)) === 1 ? true : undefined),
        10_000,
        'the uplink to be stored',
      );
      assert.equal((await server.app.store.things.get(`${ids.org}-T1`))?.organizationId, ids.org);
      await server.app.mqtt.publish(`thingdesk/${ids.org}/down/${ids.org}-T1`, '[{"tsmId":1500}]', 1);
      await inbox.waitFor(2, 10_000);
      assert.deepEqual(inbox.received.map((m) => m.topic).sort(), [
        `thingdesk/${ids.org}/data/unassigned/${ids.org}-T1/1110`,
        `thingdesk/${ids.org}/down/${ids.org}-T1`,
      ]);
      const ready = await fetch(server.url('/readyz'));
      assert.deepEqual(((await ready.json()) as { checks: unknown }).checks, { store: 'ok', mqtt: 'ok' });
    } finally {
      await server.stop();
      await forgetSessions(ids);
    }
  });

  test('an uplink for an organization the store does not know is dead-lettered, not retried forever', async () => {
    const ids = uniqueIds(1);
    const server = await startExternalInstance({ BOOTSTRAP_ORG: ids.org }, ids, 0);
    try {
      const publisher = await connectMqtt(brokerUrl!, { protocolVersion: 5 });
      await publisher.publishAsync(`thingdesk/${ids.org}-ghost/up/GW`, '[{"tsmId":1110,"tsmTs":1,"tsmTuid":"GHOST-1","batl":1}]', {
        qos: 1,
      });
      const letter = await eventually(
        async () =>
          (await server.app.store.deadLetters.list({ limit: 50 })).find((d) => d.reason === `unknown organization ${ids.org}-ghost`),
        10_000,
        'the dead letter',
      );
      assert.equal(letter.organizationId, null);
      assert.equal(await server.app.store.things.get('GHOST-1'), undefined);
    } finally {
      await server.stop();
      await forgetSessions(ids);
    }
  });

  test(
    'two instances on one PostgreSQL store split the uplink load with nothing lost or doubled',
    { skip: postgresSkipReason },
    async () => {
      const ids = uniqueIds(2);
      const databaseUrl = await createPostgresUrl();
      const first = await startExternalInstance({ DATABASE_URL: databaseUrl, BOOTSTRAP_ORG: ids.org }, ids, 0);
      const second = await startExternalInstance({ DATABASE_URL: databaseUrl, BOOTSTRAP_ORG: ids.org }, ids, 1);
      try {
        assert.equal(second.app.bootstrap, undefined, 'the second instance found the store bootstrapped');
        // The second instance takes its share of the consumer slots at the first instance's next lease scan.
        await eventually(
          async () => ((await slotsHeld(first)) === 2 && (await slotsHeld(second)) === 2 ? true : undefined),
          15_000,
          'the slots to be shared 2 + 2',
        );
        const publisher = await connectMqtt(brokerUrl!, { protocolVersion: 5 });
        const total = 600;
        const publishes: Promise<unknown>[] = [];
        for (let i = 0; i < total; i++) {
          const message = { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000 + i, tsmTuid: `${ids.org}-D${i % 30}`, batl: i % 100 };
          publishes.push(publisher.publishAsync(`thingdesk/${ids.org}/up/GW-${i % 3}`, JSON.stringify([message]), { qos: 1 }));
        }
        await Promise.all(publishes);
        const stored = async () => {
          let sum = 0;
          for (let d = 0; d < 30; d++) sum += await first.app.store.messages.count(`${ids.org}-D${d}`);
          return sum;
        };
        await eventually(async () => ((await stored()) >= total ? true : undefined), 20_000, `${total} messages stored`);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(await stored(), total);
        const storedBy = await Promise.all([first, second].map((s) => metric(s, 'thingdesk_ingest_stored_total')));
        assert.equal(storedBy[0]! + storedBy[1]!, total, 'each message stored by exactly one instance');
        assert.ok(storedBy[0]! > 0 && storedBy[1]! > 0, `both instances took a share: ${storedBy.join(' + ')}`);
        const duplicates = await Promise.all([first, second].map((s) => metric(s, 'thingdesk_ingest_duplicates_total')));
        assert.deepEqual(duplicates, [0, 0]);
      } finally {
        await first.stop();
        await second.stop();
        await forgetSessions(ids);
      }
    },
  );
});

describe('external broker start-up', () => {
  test('an unreachable broker stops start-up naming MQTT_URL', async () => {
    await assert.rejects(
      startTestApp({ MQTT_URL: 'mqtt://127.0.0.1:1' }),
      (error: unknown) => (error as { variable?: string }).variable === 'MQTT_URL',
    );
  });
});
