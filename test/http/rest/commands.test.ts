/** POST /things/{tuid}/commands (SPEC section 3): validation by the catalog, all or nothing, the downlink publish. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MqttClient } from 'mqtt';
import { commandTsmIds, exampleMessage } from '../../../src/catalog/index.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { closeMqttClients, collectMessages, connectMqtt } from '../../helpers/mqtt-clients.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);
after(closeMqttClients);

const t0 = 1_790_000_000;
const interval = { tsmId: 1500, tsmEv: 30, transactionId: 77, measurementInterval: 60, reportInterval: 300 };
const things = ['CMD-1', 'CMD-2', 'ATOM-1', 'IDS-1'];

for (const target of storeTargets) {
  describe(`sending commands over REST on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let gateway: MqttClient;
    let downlinks: ReturnType<typeof collectMessages>;
    const downlinksTo = (tuid: string) =>
      downlinks.received
        .filter((message) => message.topic === `thingdesk/acme/down/${tuid}`)
        .map((message) => JSON.parse(message.payload) as unknown);
    const send = (tuid: string, body: unknown) => rest.post(`/things/${tuid}/commands`, body);

    /** Asserts a 400 VALIDATION_FAILED naming exactly these fields. */
    async function assertRefused(tuid: string, body: unknown, fields: string[]): Promise<void> {
      const response = await send(tuid, body);
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.code, 'VALIDATION_FAILED');
      assert.deepEqual([...new Set((response.body.errors as { field: string }[]).map((error) => error.field))], fields, response.text);
    }

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      rest = new RestClient(server);
      gateway = await connectMqtt(server.mqttUrl, {
        username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
      });
      downlinks = collectMessages(gateway);
      await gateway.subscribeAsync('thingdesk/acme/down/+', { qos: 1 });
      // Each thing claims itself for acme with its first uplink; the broker acknowledges after the commit.
      const uplinks = things.map((tuid) => ({ tsmId: 1112, tsmEv: 10, tsmTs: t0, tsmTuid: tuid, uptime: 5 }));
      await gateway.publishAsync('thingdesk/acme/up/GW-1', JSON.stringify(uplinks), { qos: 1 });
    });
    after(() => server?.stop());

    test('a command is answered with tsmTs and tsmDstTuid set by the service, the caller as responsible, and published', async () => {
      const before = Math.floor(Date.now() / 1000);
      const response = await send('CMD-1', [{ ...interval, tsmTs: 5 }]);
      const afterS = Math.floor(Date.now() / 1000);
      assert.equal(response.status, 200, response.text);
      const { data } = response.body;
      assert.deepEqual(Object.keys(data).sort(), ['commands', 'responsible', 'timestamp', 'tuid']);
      assert.equal(data.tuid, 'CMD-1');
      assert.equal(data.responsible, testBootstrap.BOOTSTRAP_CLIENT_ID);
      assert.ok(Number.isInteger(data.timestamp) && data.timestamp >= before && data.timestamp <= afterS, `timestamp ${data.timestamp}`);
      assert.deepEqual(data.commands, [{ ...interval, tsmTs: data.timestamp, tsmDstTuid: 'CMD-1' }], 'the sent tsmTs is overwritten');

      await downlinks.waitFor(1);
      assert.deepEqual(downlinksTo('CMD-1'), [data.commands], 'the downlink payload is the array as answered');
    });

    test('every accepted id is sent; a tsmDstTuid equal to the path is accepted', async () => {
      const commands = commandTsmIds.map((tsmId) => ({ ...exampleMessage(tsmId), tsmDstTuid: 'CMD-2' }));
      const response = await send('CMD-2', commands);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        response.body.data.commands.map((command: { tsmId: number }) => command.tsmId),
        [...commandTsmIds],
      );
      for (const tsmId of commandTsmIds)
        assert.equal((await send('CMD-2', [{ ...exampleMessage(tsmId), tsmDstTuid: undefined }])).status, 200, `${tsmId} alone`);
    });

    test('13200 takes fields the catalog does not define, nested ones too', async () => {
      const response = await send('CMD-2', [
        { tsmId: 13200, tsmEv: 30, transactionId: 9, vendorSetting: { mode: 'eco', levels: [1, 2] }, flag: true },
      ]);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.data.commands[0].vendorSetting, { mode: 'eco', levels: [1, 2] });
      assert.equal(response.body.data.commands[0].flag, true);
    });

    test('the body must be an array of 1 to 100 commands: the problem names `commands`', async () => {
      await assertRefused('CMD-1', interval, ['commands']);
      await assertRefused('CMD-1', { commands: [interval] }, ['commands']);
      await assertRefused('CMD-1', [], ['commands']);
      await assertRefused(
        'CMD-1',
        Array.from({ length: 101 }, () => interval),
        ['commands'],
      );
      assert.equal(
        (
          await send(
            'CMD-1',
            Array.from({ length: 100 }, (_, i) => ({ ...interval, transactionId: i })),
          )
        ).status,
        200,
        '100 is the most',
      );
    });

    test('an id the endpoint does not accept names commands[0].tsmId', async () => {
      for (const tsmId of [1502, 1110, 1101, 99999]) await assertRefused('CMD-1', [{ ...interval, tsmId }], ['commands[0].tsmId']);
      await assertRefused('CMD-1', [{ ...interval, tsmId: '1500' }], ['commands[0].tsmId']);
    });

    test('tsmEv and transactionId are required integers', async () => {
      const { tsmEv: _tsmEv, transactionId: _transactionId, ...bare } = interval;
      await assertRefused('CMD-1', [interval, bare], ['commands[1].tsmEv', 'commands[1].transactionId']);
      await assertRefused('CMD-1', [{ ...interval, tsmEv: 30.5, transactionId: '77' }], ['commands[0].tsmEv', 'commands[0].transactionId']);
    });

    test('each field of the id is checked: type, value set, range, unknown fields; each named with its index', async () => {
      const table: { command: Record<string, unknown>; field: string }[] = [
        { command: { ...interval, reportInterval: '300' }, field: 'reportInterval' },
        { command: { ...interval, measurementInterval: 0 }, field: 'measurementInterval' },
        { command: { tsmId: 1501, tsmEv: 30, transactionId: 1, nodeRole: 7 }, field: 'nodeRole' },
        { command: { tsmId: 12200, tsmEv: 30, transactionId: 1, weatherMode: 3 }, field: 'weatherMode' },
        { command: { ...interval, colour: 'red' }, field: 'colour' },
        { command: { ...interval, tsmTs: -1 }, field: 'tsmTs' },
      ];
      for (const { command, field } of table) {
        const response = await send('CMD-1', [interval, interval, command]);
        assert.equal(response.status, 400, response.text);
        assert.deepEqual(
          response.body.errors.map((error: { field: string }) => error.field),
          [`commands[2].${field}`],
          response.text,
        );
        assert.match(response.body.errors[0].message, new RegExp(`^commands\\[2\\]\\.${field} `));
      }
    });

    test('a tsmDstTuid other than the path is refused', async () => {
      await assertRefused('CMD-1', [{ ...interval, tsmDstTuid: 'CMD-2' }], ['commands[0].tsmDstTuid']);
    });

    test('all or nothing: one bad command stores and publishes none of the batch', async () => {
      await assertRefused(
        'ATOM-1',
        [interval, { ...interval, transactionId: 78, reportInterval: -5 }, { ...interval, transactionId: 79 }],
        ['commands[1].reportInterval'],
      );
      const history = await rest.get('/things/ATOM-1/commands');
      assert.deepEqual(history.body, { data: [] });
      // Downlinks arrive in order: had the refused batch been published, it would come before this marker.
      const marker = await send('ATOM-1', [{ ...interval, transactionId: 80 }]);
      assert.equal(marker.status, 200);
      await waitForDownlink(() => downlinksTo('ATOM-1'));
      assert.deepEqual(downlinksTo('ATOM-1'), [marker.body.data.commands]);
    });

    test('an unknown thing is 404; a TUID breaking the rule is 400', async () => {
      const unknown = await send('NOBODY-1', [interval]);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'NOT_FOUND');
      const bad = await send('bad%20tuid', [interval]);
      assert.equal(bad.status, 400);
    });

    test('without a token: 401', async () => {
      const response = await rest.post('/things/CMD-1/commands', [interval], { auth: false });
      assert.equal(response.status, 401);
    });
  });
}

async function waitForDownlink(read: () => unknown[], timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (read().length === 0) {
    if (Date.now() > deadline) throw new Error('no downlink arrived');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
