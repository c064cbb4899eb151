/**
 * The live view of command status (issue 18): a `commandStatus` subscription sees a command turn `applied` when its
 * thing answers, on one instance, and on another instance than the one that matched the answer.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { connectAsync } from 'mqtt';
import { forgetConsumerSessions } from '../helpers/consumer-sessions.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../helpers/databases.js';
import { signInAs } from '../helpers/graphql-users.js';
import { LiveSocket } from '../helpers/live-socket.js';
import { closeMqttClients, eventually } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const subscription = 'subscription($tuid: ID) { commandStatus(tuid: $tuid) { tuid transactionId status command } }';
const command = { tsmId: 1500, tsmEv: 30, transactionId: 4711, measurementInterval: 60, reportInterval: 300 };

async function watching(server: TestApp, organizationId: string, tuid: string): Promise<LiveSocket> {
  const { client } = await signInAs(server, 'Viewer', {
    organizationId,
    organizationName: organizationId === 'acme' ? 'Acme' : organizationId,
  });
  const socket = new LiveSocket(server, client.accessToken!);
  await socket.ready;
  socket.subscribe('c', subscription, { tuid });
  await new Promise((resolve) => setTimeout(resolve, 200));
  return socket;
}

const changes = (socket: LiveSocket) =>
  socket
    .of('c')
    .flatMap((m) => (m.type === 'next' ? [(m.payload as { data: { commandStatus: Record<string, unknown> } }).data.commandStatus] : []));

describe('commandStatus on one instance', () => {
  test('an answered command arrives with its status and response; another thing and another organization stay out', async () => {
    const server = await startTestApp();
    try {
      await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_793_000_000, tsmTuid: 'CMD-1', batl: 60 }]);
      const socket = await watching(server, 'acme', 'CMD-1');
      const other = await watching(server, 'acme', 'CMD-2');
      const sent = await new RestClient(server).post('/things/CMD-1/commands', [command]);
      assert.equal(sent.status, 200, sent.text);
      await publishUplinks(server, [{ ...command, tsmEv: 31, tsmTs: 1_793_000_010, tsmTuid: 'CMD-1', tsmGw: 'GW-1' }]);
      await socket.waitUntil(() => changes(socket).length === 1);
      const [change] = changes(socket);
      assert.equal(change!.tuid, 'CMD-1');
      assert.equal(change!.transactionId, 4711);
      assert.equal(change!.status, 'applied');
      assert.equal((change!.command as { status: string; respondedAt: number }).status, 'applied');
      assert.equal(typeof (change!.command as { respondedAt: number }).respondedAt, 'number');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(changes(other), [], "another thing's subscription saw nothing");
      socket.close();
      other.close();
    } finally {
      await server.stop();
    }
  });
});

const brokerUrl = process.env.TEST_MQTT_URL;
const twoInstancesSkip =
  postgresSkipReason ?? (brokerUrl ? undefined : 'two-instance command status test skipped: TEST_MQTT_URL is not set');

describe('commandStatus across instances', { skip: twoInstancesSkip }, () => {
  test(
    'a command sent through A and answered through the broker turns applied on a subscription held on B',
    { timeout: 60_000 },
    async () => {
      const run = randomBytes(4).toString('hex');
      const org = `cmd-${run}`;
      const group = `cmd-${run}`;
      const databaseUrl = await createPostgresUrl();
      const instances: TestApp[] = [];
      try {
        for (const name of ['a', 'b'])
          instances.push(
            await startTestApp({
              DATABASE_URL: databaseUrl,
              MQTT_URL: brokerUrl!,
              MQTT_SHARED_GROUP: group,
              MQTT_CONSUMER_SLOTS: '2',
              MQTT_CLIENT_ID: `${name}-${run}`,
              BOOTSTRAP_ORG: org,
            }),
          );
        const gateway = await connectAsync(brokerUrl!, { protocolVersion: 5, reconnectPeriod: 0 });
        const tuid = `${org}-T1`;
        try {
          await gateway.publishAsync(
            `thingdesk/${org}/up/GW-1`,
            JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: 1_793_000_000, tsmTuid: tuid, batl: 60 }]),
            {
              qos: 1,
            },
          );
          const rest = new RestClient(instances[0]!);
          await eventually(async () => ((await rest.get(`/things/${tuid}`)).status === 200 ? true : undefined), 10_000, 'the thing stored');
          // Answers are matched on whichever instance consumes them: watch on both, so each path is seen whichever it is.
          const sockets = [await watching(instances[1]!, org, tuid), await watching(instances[0]!, org, tuid)];
          const sent = await rest.post(`/things/${tuid}/commands`, [command]);
          assert.equal(sent.status, 200, sent.text);
          await gateway.publishAsync(
            `thingdesk/${org}/up/GW-1`,
            JSON.stringify([{ ...command, tsmEv: 31, tsmTs: 1_793_000_010, tsmTuid: tuid, tsmGw: 'GW-1' }]),
            {
              qos: 1,
            },
          );
          for (const socket of sockets) {
            await socket.waitUntil(() => changes(socket).some((change) => change.status === 'applied'), 10_000);
            assert.equal(changes(socket).length, 1, 'once, not a local and a relayed copy');
            socket.close();
          }
        } finally {
          await gateway.endAsync();
        }
      } finally {
        for (const instance of instances) await instance.stop();
        await forgetConsumerSessions(brokerUrl!, group, 2);
      }
    },
  );
});
