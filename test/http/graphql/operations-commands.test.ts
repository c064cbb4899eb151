/**
 * GraphQL commands (SPEC section 4): sending them, which publishes the downlink, and their history. The same domain
 * rules as REST; bad commands are named by their GraphQL names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf } from '../../helpers/graphql-users.js';
import { closeMqttClients } from '../../helpers/mqtt-clients.js';
import type { TestApp } from '../../helpers/test-app.js';
import { seedFieldService, startFieldServiceServer, type FieldService } from './operations-field-service-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const interval = { tsmId: 1500, tsmEv: 30, transactionId: 77, measurementInterval: 60, reportInterval: 300 };

const sendCommands =
  'mutation X($tuid: ID!, $commands: [JSON!]!) { sendCommands(tuid: $tuid, commands: $commands) { tuid timestamp responsible commands } }';

for (const target of storeTargets) {
  describe(`GraphQL commands on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let clock: ManualClock;
    let installer: GraphqlClient;
    let manager: GraphqlClient;
    let downlinks: FieldService['downlinks'];

    before(async () => {
      ({ server, clock } = await startFieldServiceServer(target));
      ({ installer, manager, downlinks } = await seedFieldService(server));
    });
    after(() => server?.stop());

    test('sendCommands answers {tuid, timestamp, responsible, commands}, stores the request and publishes the downlink', async () => {
      const response = await manager.request(sendCommands, { tuid: 'CMD-1', commands: [{ ...interval, tsmTs: 5 }] });
      const sent = dataOf(response).sendCommands;
      const timestamp = Math.floor(clock.now() / 1000);
      assert.deepEqual(sent, {
        tuid: 'CMD-1',
        timestamp,
        responsible: 'boss@acme.test',
        commands: [{ ...interval, tsmTs: timestamp, tsmDstTuid: 'CMD-1' }],
      });
      await downlinks.waitFor(1);
      assert.deepEqual(JSON.parse(downlinks.received.find((m) => m.topic === 'thingdesk/acme/down/CMD-1')!.payload), sent.commands);
      const inline = await manager.request(
        'mutation { sendCommands(tuid: "CMD-1", commands: [{tsmId: 13200, tsmEv: 30, transactionId: 9, vendor: {mode: "eco", levels: [1, 2]}}]) { commands } }',
      );
      assert.deepEqual(
        dataOf(inline).sendCommands.commands[0].vendor,
        { mode: 'eco', levels: [1, 2] },
        'JSON literals are read inline too',
      );
    });

    test('sendCommands: a bad command is BAD_USER_INPUT naming commands[i].field; all or nothing', async () => {
      const table: [unknown[], string[]][] = [
        [[{ ...interval, tsmId: 1502 }], ['commands[0].tsmId']],
        [[interval, { ...interval, reportInterval: '300' }], ['commands[1].reportInterval']],
        [[{ ...interval, tsmEv: 30.5, transactionId: '77' }], ['commands[0].tsmEv', 'commands[0].transactionId']],
        [[{ ...interval, colour: 'red' }], ['commands[0].colour']],
        [[{ ...interval, tsmDstTuid: 'CMD-1' }], ['commands[0].tsmDstTuid']],
        [[], ['commands']],
        [Array.from({ length: 101 }, () => interval), ['commands']],
      ];
      for (const [commands, fields] of table) {
        const response = await manager.request(sendCommands, { tuid: 'CMD-2', commands });
        const named = [...new Set(((response.body.errors?.[0]?.extensions?.errors ?? []) as { field: string }[]).map((e) => e.field))];
        assert.equal(response.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', JSON.stringify(response.body));
        assert.deepEqual(named, fields, JSON.stringify(response.body));
      }
      assert.deepEqual(dataOf(await manager.request('{ commands(tuid: "CMD-2") { tuid } }')).commands, [], 'nothing was stored');
      assertGraphqlError(
        await manager.request(sendCommands, { tuid: 'NOBODY-1', commands: [interval] }),
        'NOT_FOUND',
        'No thing NOBODY-1.',
      );
      assertBadInput(await manager.request(sendCommands, { tuid: 'bad tuid', commands: [interval] }), ['tuid']);
    });

    test('commands: the history, newest first, each command with status; limit; unknown NOT_FOUND', async () => {
      clock.advance(1_000);
      await manager.request(sendCommands, {
        tuid: 'CMD-1',
        commands: [
          { ...interval, transactionId: 78 },
          { ...interval, transactionId: 79 },
        ],
      });
      const history = dataOf(
        await installer.request('{ commands(tuid: "CMD-1") { tuid timestamp responsible command commands } }'),
      ).commands;
      assert.equal(history.length, 3);
      const [newest] = history;
      assert.equal(newest.responsible, 'boss@acme.test');
      assert.equal(newest.timestamp, Math.floor(clock.now() / 1000));
      assert.deepEqual(
        newest.commands.map((c: { transactionId: number; status: string; response: unknown }) => [c.transactionId, c.status, c.response]),
        [
          [78, 'sent', null],
          [79, 'sent', null],
        ],
      );
      assert.deepEqual(newest.command, newest.commands[0]);
      // The statuses as an enum beside the JSON: the same words.
      const typed = dataOf(await installer.request('{ commands(tuid: "CMD-1") { status statuses commands } }')).commands;
      for (const record of typed) {
        assert.deepEqual(
          record.statuses,
          record.commands.map((c: { status: string }) => c.status),
        );
        assert.equal(record.status, record.commands[0].status);
      }
      assert.deepEqual(typed[0].statuses, ['sent', 'sent']);
      assert.equal(dataOf(await installer.request('{ commands(tuid: "CMD-1", limit: 1) { timestamp } }')).commands.length, 1);
      assertBadInput(await installer.request('{ commands(tuid: "CMD-1", limit: -1) { timestamp } }'), ['limit']);
      assertGraphqlError(await installer.request('{ commands(tuid: "NOPE") { timestamp } }'), 'NOT_FOUND', 'No thing NOPE.');
    });
  });
}
