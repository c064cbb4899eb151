/**
 * GET /things/{tuid}/commands (SPEC section 3): the history newest first, answers matched by transactionId from the
 * destination thing's uplinks, organization isolation, and the remote configuration flow of seed 000 end to end.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startFleet } from '../../../src/simulator/index.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { closeMqttClients, collectMessages, connectMqtt, eventually } from '../../helpers/mqtt-clients.js';
import { testBootstrap } from '../../helpers/test-app.js';
import { commandCalls, commandHistoryServer, echo, interval, t0 } from './command-history-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`command history over REST on ${target.name}`, { skip: target.skip }, () => {
    const context = commandHistoryServer(target);
    const { uplink, send, history, trackedCommand } = commandCalls(context);

    test('one record per request, newest first, `command` the first of `commands`, each `sent` until answered', async () => {
      assert.deepEqual(await history('HIST-1'), [], 'a thing with no commands has an empty history');
      const first = await send('HIST-1', [interval(1)]);
      const second = await send('HIST-1', [interval(2), { tsmId: 1501, tsmEv: 30, transactionId: 3, nodeRole: 1 }]);
      await send('HIST-1', [interval(4)]);
      const records = await history('HIST-1');
      assert.deepEqual(
        records.map((record) => record.commands.map((command) => command.transactionId)),
        [[4], [2, 3], [1]],
      );
      const [, middle] = records;
      assert.deepEqual(middle, {
        tuid: 'HIST-1',
        timestamp: second.timestamp,
        responsible: testBootstrap.BOOTSTRAP_CLIENT_ID,
        command: { ...second.commands[0], status: 'sent', response: null, respondedAt: null },
        commands: second.commands.map((command) => ({ ...command, status: 'sent', response: null, respondedAt: null })),
      });
      assert.equal(records[2]?.timestamp, first.timestamp);
    });

    test('limit: absent or 0 means all, N the newest N; a negative or non-integer limit is 400', async () => {
      assert.equal((await history('HIST-1')).length, 3);
      assert.equal((await history('HIST-1', '?limit=0')).length, 3);
      assert.deepEqual(
        (await history('HIST-1', '?limit=2')).map((record) => record.command.transactionId),
        [4, 2],
      );
      for (const limit of ['-1', '1.5', 'abc']) {
        const response = await context.rest.get(`/things/HIST-1/commands?limit=${limit}`);
        assert.equal(response.status, 400, `limit=${limit}`);
        assert.equal(response.body.errors[0].field, 'limit');
      }
    });

    test('an echo with the transactionId from the destination thing makes the command applied, with the message and its arrival', async () => {
      await send('MATCH-1', [interval(101), interval(102)]);
      const before = Math.floor(Date.now() / 1000);
      await uplink([echo('MATCH-1', 101)]);
      const applied = await eventually(
        async () => {
          const command = await trackedCommand('MATCH-1', 101);
          return command?.status === 'applied' ? command : undefined;
        },
        5000,
        'the command to be applied',
      );
      assert.deepEqual(applied.response, echo('MATCH-1', 101), 'the response is the message as received');
      assert.ok(applied.respondedAt !== null && applied.respondedAt >= before && applied.respondedAt <= Math.floor(Date.now() / 1000));
      assert.equal((await trackedCommand('MATCH-1', 102))?.status, 'sent', 'the other command of the request still waits');
    });

    test('a 1102 with the transactionId makes the command unavailable', async () => {
      await send('MATCH-1', [{ tsmId: 13200, tsmEv: 30, transactionId: 201 }]);
      const unavailable = { tsmId: 1102, tsmEv: 33, tsmTs: t0 + 200, tsmTuid: 'MATCH-1', transactionId: 201 };
      await uplink([unavailable]);
      const command = await eventually(
        async () => {
          const found = await trackedCommand('MATCH-1', 201);
          return found?.status === 'sent' ? undefined : found;
        },
        5000,
        'the 1102 to be matched',
      );
      assert.equal(command.status, 'unavailable');
      assert.deepEqual(command.response, unavailable);
    });

    test("another thing's echo or another transactionId changes nothing", async () => {
      await send('MATCH-1', [interval(301), interval(302)]);
      // One uplink batch is matched in order: when the last (a real answer) is applied, the first two were seen.
      await uplink([echo('MATCH-2', 301), echo('MATCH-1', 399), echo('MATCH-1', 302)]);
      await eventually(
        async () => ((await trackedCommand('MATCH-1', 302))?.status === 'applied' ? true : undefined),
        5000,
        'the marker answer',
      );
      const untouched = await trackedCommand('MATCH-1', 301);
      assert.deepEqual(
        { status: untouched?.status, response: untouched?.response, respondedAt: untouched?.respondedAt },
        { status: 'sent', response: null, respondedAt: null },
      );
    });

    test('the newest waiting request gets an answer when several share its transactionId', async () => {
      await send('MATCH-2', [interval(401)]);
      await send('MATCH-2', [interval(401)]);
      await uplink([echo('MATCH-2', 401)]);
      await eventually(
        async () => ((await history('MATCH-2'))[0]?.command.status === 'applied' ? true : undefined),
        5000,
        'the newest request applied',
      );
      assert.deepEqual(
        (await history('MATCH-2')).map((record) => record.command.status),
        ['applied', 'sent'],
      );
      await uplink([{ ...echo('MATCH-2', 401), tsmTs: t0 + 101 }]);
      await eventually(
        async () => ((await history('MATCH-2'))[1]?.command.status === 'applied' ? true : undefined),
        5000,
        'the older request applied by the next answer',
      );
    });

    test("another organization's thing answers 404 exactly like an unknown thing, for sending and reading", async () => {
      const headers = { authorization: `Bearer ${context.rivalToken}` };
      const before = await history('ISO-1');
      for (const [method, body] of [
        ['POST', [interval(501)]],
        ['GET', undefined],
      ] as const) {
        const foreign = await context.rest.request(method, '/things/ISO-1/commands', { headers, body });
        const unknown = await context.rest.request(method, '/things/ISO-404/commands', { headers, body });
        assert.equal(foreign.status, 404, foreign.text);
        assert.deepEqual({ ...foreign.body, message: undefined }, { ...unknown.body, message: undefined });
        assert.equal(foreign.body.message, unknown.body.message.replace('ISO-404', 'ISO-1'));
      }
      assert.deepEqual(await history('ISO-1'), before, 'the refused send stored nothing');
    });

    test('remote configuration flow (seed 000 rule 5): a simulated device gets the command and its echo lands in the history', async () => {
      const subscriber = await connectMqtt(context.server.mqttUrl, {
        username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
      });
      const downlinks = collectMessages(subscriber);
      await subscriber.subscribeAsync('thingdesk/acme/down/+', { qos: 1 });
      context.fleet = await startFleet({
        url: context.server.mqttUrl,
        username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
        organizationId: 'acme',
        gateways: 1,
        devices: 2,
        rate: 2,
        protocolVersion: 4,
        tuidPrefix: 'FLOW',
      });
      const device = context.fleet.deviceTuids[1]!;
      // The device claims itself with its first uplink.
      await eventually(
        async () => ((await context.rest.get(`/things/${device}`)).status === 200 ? true : undefined),
        10_000,
        `thing ${device}`,
      );

      const command = { tsmId: 1500, tsmEv: 30, transactionId: 77, measurementInterval: 60, reportInterval: 300 };
      const sent = await send(device, [command]);
      assert.deepEqual(sent.commands, [{ ...command, tsmTs: sent.timestamp, tsmDstTuid: device }]);

      await downlinks.waitFor(1);
      assert.deepEqual(
        downlinks.received.map((message) => [message.topic, JSON.parse(message.payload)]),
        [[`thingdesk/acme/down/${device}`, sent.commands]],
      );

      const applied = await eventually(
        async () => {
          const found = await trackedCommand(device, 77);
          return found?.status === 'applied' ? found : undefined;
        },
        10_000,
        'the echo of the device',
      );
      assert.equal(applied.response?.['tsmId'], 1500);
      assert.equal(applied.response?.['tsmEv'], 31);
      assert.equal(applied.response?.['tsmTuid'], device);
      assert.equal(applied.response?.['transactionId'], 77);
      assert.equal(applied.response?.['reportInterval'], 300);
      assert.equal(applied.response?.['tsmDstTuid'], undefined, 'the echo comes from the device');
      assert.equal(typeof applied.respondedAt, 'number');
    });
  });
}
