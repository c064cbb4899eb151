/**
 * Fault: the external broker restarts (simulated by cutting a TCP proxy in front of the shared Mosquitto, which
 * keeps running for other tests). The platform reconnects by itself, readiness follows the connection, the uplinks
 * that arrived while it was away are delivered from its persistent sessions (the shared subscription resumes) and
 * stored exactly once, and downlinks go out again.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { connectAsync } from 'mqtt';
import { cleanupStores } from '../helpers/databases.js';
import { closeMqttClients, collectMessages, connectMqtt, eventually } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const brokerUrl = process.env.TEST_MQTT_URL;
const skip = brokerUrl ? undefined : 'external broker fault tests skipped: TEST_MQTT_URL is not set (e.g. mqtt://127.0.0.1:1883)';
const consumers = 4;

after(cleanupStores);
after(closeMqttClients);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The broker is shared with other runs: this test's organization, client ids and group are its own. */
function uniqueIds() {
  const run = randomBytes(4).toString('hex');
  return { org: `flt-${run}`, group: `fault-${run}`, clientId: `thingdesk-fault-${run}` };
}

/** Connects once with a clean session under each of the instance's client ids, so the broker forgets them. */
async function forgetSessions(group: string): Promise<void> {
  for (const id of Array.from({ length: consumers }, (_, i) => `${group}-slot-${i}`)) {
    const client = await connectAsync(brokerUrl!, {
      clientId: id,
      protocolVersion: 5,
      clean: true,
      properties: { sessionExpiryInterval: 0 },
      reconnectPeriod: 0,
    });
    await client.endAsync();
  }
}

async function readiness(server: TestApp): Promise<{ status: number; checks: Record<string, string> }> {
  const response = await fetch(server.url('/readyz'));
  return { status: response.status, checks: ((await response.json()) as { checks: Record<string, string> }).checks };
}

describe('external broker restart', { skip }, () => {
  test(
    'the platform reconnects by itself, resumes its shared subscription and gets what arrived meanwhile',
    { timeout: 60_000 },
    async () => {
      const ids = uniqueIds();
      const proxy = await TcpProxy.forUrl(brokerUrl!, 1883);
      let server: TestApp | undefined;
      let publishing = false;
      let publisher: Promise<void> | undefined;
      try {
        server = await startTestApp({
          BOOTSTRAP_ORG: ids.org,
          MQTT_URL: proxy.proxiedUrl(brokerUrl!),
          MQTT_CLIENT_ID: ids.clientId,
          MQTT_SHARED_GROUP: ids.group,
          MQTT_CONSUMER_SLOTS: String(consumers),
        });
        const live = server;
        const tuid = `${ids.org}-T1`;
        const count = () => live.app.store.messages.count(tuid);
        // Gateways and the integration talk to the broker directly, not through the proxy: only the platform is cut off.
        const gateway = await connectMqtt(brokerUrl!, { protocolVersion: 5 });
        const t0 = 1_790_000_000;
        const uplink = (seq: number) =>
          gateway.publishAsync(
            `thingdesk/${ids.org}/up/GW-${seq % 3}`,
            JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: t0 + seq, tsmTuid: tuid, batl: seq % 100 }]),
            { qos: 1 },
          );
        await uplink(0);
        await eventually(async () => ((await count()) === 1 ? true : undefined), 10_000, 'the first uplink to be stored');
        assert.deepEqual(await readiness(live), { status: 200, checks: { store: 'ok', mqtt: 'ok' } });
        const acceptedBefore = proxy.accepted;

        // Gateways keep publishing from before the "restart" until after it: some uplinks are in the platform's hands
        // (delivered, not yet acknowledged) when its connections drop, the broker keeps the rest in its sessions.
        let published = 1;
        publishing = true;
        publisher = (async () => {
          while (publishing) {
            await uplink(published);
            published += 1;
            await sleep(10);
          }
        })();
        await eventually(async () => ((await count()) >= 20 ? true : undefined), 10_000, 'uplinks flowing before the restart');

        // The broker "restarts": every connection of the platform drops and reconnects are refused.
        await proxy.cut();
        await eventually(async () => ((await readiness(live)).status === 503 ? true : undefined), 5000, '/readyz to answer 503');
        assert.deepEqual((await readiness(live)).checks, { store: 'ok', mqtt: 'unreachable' });
        // Work the platform had already received may still commit right after the cut; after that, nothing arrives.
        await sleep(500);
        const storedWhileAway = await count();
        const publishedAtCut = published;
        await sleep(2000);
        assert.equal(await count(), storedWhileAway, 'nothing arrived while the platform was disconnected');
        assert.ok(published - publishedAtCut >= 50, `uplinks were published meanwhile (${published - publishedAtCut})`);

        await proxy.restore();
        await eventually(
          async () => ((await readiness(live)).status === 200 ? true : undefined),
          15_000,
          '/readyz to answer 200 after the reconnect',
        );
        assert.ok(
          proxy.accepted >= acceptedBefore + consumers + 1,
          `the platform opened its connections again (${proxy.accepted - acceptedBefore})`,
        );
        // Uplinks after the reconnect still flow through the shared subscription.
        await eventually(() => (published >= publishedAtCut + 150 ? true : undefined), 10_000, 'uplinks published after the restore');
        publishing = false;
        await publisher;
        await eventually(async () => ((await count()) >= published ? true : undefined), 15_000, `all ${published} uplinks to be stored`);
        await sleep(300);
        const stored = await live.app.store.messages.listJson({ tuid, limit: 10_000 });
        const seqs = stored.map((json) => (JSON.parse(json) as { tsmTs: number }).tsmTs - t0).sort((a, b) => a - b);
        assert.deepEqual(
          seqs,
          Array.from({ length: published }, (_, i) => i),
          'every uplink stored exactly once',
        );

        // Downlinks published after the reconnect arrive.
        const device = await connectMqtt(brokerUrl!, { protocolVersion: 5 });
        const inbox = collectMessages(device);
        await device.subscribeAsync(`thingdesk/${ids.org}/down/${tuid}`, { qos: 1 });
        const rest = new RestClient(live);
        const command = { tsmId: 1500, tsmEv: 30, transactionId: 77, measurementInterval: 60, reportInterval: 300 };
        const sent = await rest.post(`/things/${tuid}/commands`, [command]);
        assert.equal(sent.status, 200, sent.text);
        await inbox.waitFor(1, 10_000);
        assert.equal(inbox.received[0]!.topic, `thingdesk/${ids.org}/down/${tuid}`);
        assert.deepEqual(JSON.parse(inbox.received[0]!.payload), sent.body.data.commands);
      } finally {
        publishing = false;
        await publisher?.catch(() => undefined);
        await proxy.restore().catch(() => undefined);
        await server?.stop();
        await proxy.close();
        await forgetSessions(ids.group).catch(() => undefined);
      }
    },
  );
});
