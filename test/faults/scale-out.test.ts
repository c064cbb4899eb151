/**
 * Fault: the scale-out path (PostgreSQL + an external broker, several instances) loses nothing the broker
 * acknowledged. Instances stop gracefully, die with SIGKILL and come back under new client ids; the consumer
 * sessions are named by slot and held through leases, so whatever the broker queued for a slot is drained by
 * whichever instance holds it next (issue 13).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { connectAsync, type MqttClient } from 'mqtt';
import pg from 'pg';
import { forgetConsumerSessions } from '../helpers/consumer-sessions.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../helpers/databases.js';
import { eventually } from '../helpers/mqtt-clients.js';
import { OwnMosquitto, ownMosquittoSkipReason } from '../helpers/own-mosquitto.js';
import { startPlatformProcess, type PlatformProcess } from '../helpers/platform-process.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const brokerUrl = process.env.TEST_MQTT_URL;
const skip =
  postgresSkipReason ?? (brokerUrl ? undefined : 'scale-out tests skipped: TEST_MQTT_URL is not set (e.g. mqtt://127.0.0.1:1883)');
const slots = 4;

after(cleanupStores);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function deployment() {
  const run = randomBytes(4).toString('hex');
  return {
    org: `so-${run}`,
    group: `scale-${run}`,
    env: (databaseUrl: string, name: string, url = brokerUrl!) => ({
      DATABASE_URL: databaseUrl,
      MQTT_URL: url,
      MQTT_SHARED_GROUP: `scale-${run}`,
      MQTT_CONSUMER_SLOTS: String(slots),
      MQTT_CLIENT_ID: `${name}-${run}`,
      BOOTSTRAP_ORG: `so-${run}`,
    }),
  };
}

const forgetSessions = (group: string) => forgetConsumerSessions(brokerUrl!, group, slots);

/** The tsmTs offsets stored for the run's gateway, read straight from the store. */
async function storedSeqs(databaseUrl: string, tuidPrefix: string, t0: number): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ tsm_ts: number }>('select tsm_ts from messages where tuid like $1', [`${tuidPrefix}%`]);
    return result.rows.map((row) => Number(row.tsm_ts) - t0).sort((a, b) => a - b);
  } finally {
    await client.end();
  }
}

/** A gateway publishing one uplink every `everyMs` with QoS 1, remembering what the broker acknowledged. */
function startGateway(gateway: MqttClient, org: string, tuidPrefix: string, t0: number, everyMs: number) {
  const acknowledged = new Set<number>();
  let sent = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const seq = sent++;
      const message = { tsmId: 1110, tsmEv: 10, tsmTs: t0 + seq, tsmTuid: `${tuidPrefix}${seq % 20}`, batl: seq % 100 };
      gateway.publish(`thingdesk/${org}/up/GW-${seq % 3}`, JSON.stringify([message]), { qos: 1 }, (error) => {
        if (!error) acknowledged.add(seq);
      });
      await sleep(everyMs);
    }
  })();
  return {
    acknowledged,
    get sent() {
      return sent;
    },
    async stop() {
      running = false;
      await done;
      await eventually(() => (acknowledged.size === sent ? true : undefined), 10_000, 'the broker to acknowledge every publish');
    },
  };
}

describe('scale-out: PostgreSQL + an external broker, several instances', { skip }, () => {
  test(
    'uplinks the broker queued while no instance ran are all stored by the next instance, under another client id',
    { timeout: 60_000 },
    async () => {
      const ids = deployment();
      const databaseUrl = await createPostgresUrl();
      let first: TestApp | undefined = await startTestApp(ids.env(databaseUrl, 'first'));
      let second: TestApp | undefined;
      const gateway = await connectAsync(brokerUrl!, { protocolVersion: 5, reconnectPeriod: 0 });
      try {
        await first.stop();
        first = undefined;
        const t0 = 1_790_000_000;
        const total = 400;
        await Promise.all(
          Array.from({ length: total }, (_, seq) =>
            gateway.publishAsync(
              `thingdesk/${ids.org}/up/GW-Q`,
              JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: t0 + seq, tsmTuid: `${ids.org}-Q${seq % 10}`, batl: 1 }]),
              { qos: 1 },
            ),
          ),
        );
        second = await startTestApp(ids.env(databaseUrl, 'second'));
        await eventually(
          async () => ((await storedSeqs(databaseUrl, `${ids.org}-Q`, t0)).length >= total ? true : undefined),
          20_000,
          `${total} queued uplinks stored`,
        );
        assert.deepEqual(
          await storedSeqs(databaseUrl, `${ids.org}-Q`, t0),
          Array.from({ length: total }, (_, i) => i),
        );
      } finally {
        await gateway.endAsync();
        await first?.stop();
        await second?.stop();
        await forgetSessions(ids.group);
      }
    },
  );

  test(
    'SIGKILL of one instance and SIGTERM of another while a gateway publishes: every acknowledged uplink is stored exactly once',
    // Four platform processes start in turn, each given 90 s (tsx compiles the tree, slow on a busy host): the
    // bound only stops a hang; what is checked is the stored set.
    // Its own broker, set as docs/mqtt.md asks: while no instance runs (and Node 24 under load takes long to start
    // one) the slots' sessions queue past Mosquitto's default cap of 1,000, which the shared broker keeps and which
    // dropped 3,262 of 12,725 acknowledged uplinks in one run.
    { timeout: 420_000, skip: ownMosquittoSkipReason },
    async () => {
      const ids = deployment();
      const databaseUrl = await createPostgresUrl();
      const broker = await OwnMosquitto.start(['max_queued_messages 0', 'max_inflight_messages 0']);
      const processes: PlatformProcess[] = [];
      const start = async (name: string) => {
        const started = await startPlatformProcess(ids.env(databaseUrl, name, broker.url));
        processes.push(started);
        return started;
      };
      const gatewayClient = await connectAsync(broker.url, { protocolVersion: 5, reconnectPeriod: 0 });
      try {
        const a = await start('a');
        const b = await start('b');
        const t0 = 1_791_000_000;
        const tuidPrefix = `${ids.org}-K`;
        const gateway = startGateway(gatewayClient, ids.org, tuidPrefix, t0, 4);
        await sleep(2500);
        a.child.kill('SIGKILL');
        await a.exited;
        await sleep(1500);
        b.child.kill('SIGTERM');
        assert.equal(await b.exited, 0, b.output());
        // No instance runs for a moment: the broker keeps what arrives in the slot sessions.
        await sleep(1000);
        await start('c');
        await sleep(1500);
        await start('a-again');
        await sleep(2000);
        await gateway.stop();
        const acknowledged = [...gateway.acknowledged].sort((x, y) => x - y);
        // What the test proves is that none is lost, whatever the rate this machine reached (rates are benchmarks').
        assert.ok(acknowledged.length > 100, `the gateway published throughout (${acknowledged.length} acknowledged)`);
        // A's slots are taken over once its leases expire (10 s), then their sessions are drained.
        await eventually(
          async () => ((await storedSeqs(databaseUrl, tuidPrefix, t0)).length >= acknowledged.length ? true : undefined),
          40_000,
          'every acknowledged uplink stored',
        ).catch(async (error: Error) => {
          // Say what is missing: lost uplinks and slow ones read differently.
          const stored = new Set(await storedSeqs(databaseUrl, tuidPrefix, t0));
          const missing = acknowledged.filter((seq) => !stored.has(seq));
          const warnings = processes.flatMap((p) =>
            p
              .output()
              .split('\n')
              .filter((line) => /"level":(40|50|60)/.test(line))
              .slice(-5),
          );
          throw new Error(
            `${error.message}: ${stored.size} of ${acknowledged.length} stored, missing ${missing.length}: ${missing.slice(0, 30).join(' ')}\n${warnings.join('\n')}`,
          );
        });
        await sleep(500);
        const stored = await storedSeqs(databaseUrl, tuidPrefix, t0);
        assert.deepEqual(stored, acknowledged, 'stored exactly the acknowledged uplinks, each once');
      } finally {
        await gatewayClient.endAsync();
        for (const running of processes) {
          if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGTERM');
          await running.exited;
        }
        await broker.stop();
      }
    },
  );
});

describe('scale-out: a store outage under load through the broker', { skip: postgresSkipReason ?? ownMosquittoSkipReason }, () => {
  test(
    '10 s without the store at about 1,000 msg/s: every uplink the broker acknowledged is stored once the store is back',
    { timeout: 120_000 },
    async () => {
      // A broker set as docs/mqtt.md asks: no cap on what a session queues while nobody can commit.
      const broker = await OwnMosquitto.start(['max_queued_messages 0', 'max_inflight_messages 0']);
      const run = randomBytes(4).toString('hex');
      const databaseUrl = await createPostgresUrl();
      const proxy = await TcpProxy.forUrl(databaseUrl, 5432);
      let server: TestApp | undefined;
      const gatewayClient = await connectAsync(broker.url, { protocolVersion: 5, reconnectPeriod: 0 });
      try {
        server = await startTestApp({
          DATABASE_URL: proxy.proxiedUrl(databaseUrl),
          MQTT_URL: broker.url,
          MQTT_SHARED_GROUP: `outage-${run}`,
          MQTT_CONSUMER_SLOTS: String(slots),
          BOOTSTRAP_ORG: `so-${run}`,
          STORE_TIMEOUT_MS: '2000',
        });
        const org = `so-${run}`;
        const t0 = 1_792_000_000;
        const tuidPrefix = `${org}-O`;
        const gateway = startGateway(gatewayClient, org, tuidPrefix, t0, 1);
        await sleep(2000);
        await proxy.cut();
        const sentBeforeCut = gateway.sent;
        await sleep(10_000);
        const sentDuringOutage = gateway.sent - sentBeforeCut;
        await proxy.restore();
        await sleep(2000);
        await gateway.stop();
        const acknowledged = [...gateway.acknowledged].sort((x, y) => x - y);
        // The uplinks of the outage are the ones at stake; how many this machine managed is a benchmark's concern.
        assert.ok(sentDuringOutage > 100, `uplinks published while the store was away (${sentDuringOutage})`);
        await eventually(
          async () => ((await storedSeqs(databaseUrl, tuidPrefix, t0)).length >= acknowledged.length ? true : undefined),
          60_000,
          'every acknowledged uplink stored',
        );
        assert.deepEqual(await storedSeqs(databaseUrl, tuidPrefix, t0), acknowledged);
      } finally {
        await gatewayClient.endAsync();
        await server?.stop();
        await proxy.close();
        await broker.stop();
      }
    },
  );
});
