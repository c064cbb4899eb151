/** SPEC section 16: bulk actions on things (POST /things/bulk, bulkUpdateThings), REST and GraphQL, on both stores. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { assertGraphqlError, dataOf, type SignedInUser } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import type { TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { start, startFleet, thingTuids } from './fleet-at-scale-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`bulk actions on things on ${target.name}`, { skip: target.skip }, () => {
    const clock = new ManualClock(start);
    let server: TestApp;
    let installer: SignedInUser;
    let manager: SignedInUser;
    const rest = () => new RestClient(server);
    const tuidsOf = (query: string) => thingTuids(server, query);

    before(async () => {
      ({ server, installer, manager } = await startFleet(target, clock));
    });
    after(() => server?.stop());

    test('POST /things/bulk: one result per thing through the single call; a bad TUID among good ones', async () => {
      const grouped = await rest().post('/things/bulk', {
        action: 'set_group',
        group_id: 'north',
        tuids: ['T-1', 'not a tuid!', 'T-1', 'T-2'],
      });
      assert.equal(grouped.status, 200, grouped.text);
      assert.deepEqual(
        grouped.body.data.results.map((r: { tuid: string; ok: boolean; code?: string }) => [r.tuid, r.ok, r.code]),
        [
          ['T-1', true, undefined],
          ['not a tuid!', false, 'VALIDATION_FAILED'],
          ['T-2', true, undefined],
        ],
      );
      assert.deepEqual(await tuidsOf('?group_id=north'), ['T-1', 'T-2']);
      const retired = await rest().post('/things/bulk', {
        action: 'set_installation_status',
        installation_status: 'retired',
        tuids: ['T-2'],
      });
      assert.equal(retired.body.data.results[0].ok, true);
      const status = await rest().post('/things/bulk', {
        action: 'set_installation_status',
        installation_status: 'installed',
        tuids: ['T-1', 'T-2'],
      });
      assert.deepEqual(
        status.body.data.results.map((r: { tuid: string; ok: boolean; code?: string }) => [r.tuid, r.ok, r.code]),
        [
          ['T-1', true, undefined],
          ['T-2', false, 'INVALID_TRANSITION'],
        ],
      );
      assert.match(status.body.data.results[1].message, /retired/);
      const commands = [{ tsmId: 1500, tsmEv: 30, transactionId: 7, measurementInterval: 60, reportInterval: 300 }];
      const sent = await rest().post('/things/bulk', { action: 'send_commands', commands, tuids: ['T-3', 'GHOST-1'] });
      assert.deepEqual(
        sent.body.data.results.map((r: { tuid: string; ok: boolean; code?: string }) => [r.tuid, r.ok, r.code]),
        [
          ['T-3', true, undefined],
          ['GHOST-1', false, 'NOT_FOUND'],
        ],
      );
      assert.equal((await rest().get('/things/T-3/commands')).body.data.length, 1, 'sent through the single call, recorded');
      const filtered = await rest().post('/things/bulk', { action: 'set_group', group_id: 'unassigned', filter: { gateway_tuid: 'GW-1' } });
      assert.deepEqual(
        filtered.body.data.results.map((r: { tuid: string }) => r.tuid),
        ['T-1', 'T-2'],
      );
      assert.deepEqual(await tuidsOf('?group_id=north'), []);
    });

    test('POST /things/bulk refuses the whole request for a bad action, field, group or selection; GraphQL for Managers only', async () => {
      for (const [body, status, field] of [
        [{ action: 'paint', tuids: ['T-1'] }, 400, 'action'],
        [{ action: 'set_group', tuids: ['T-1'] }, 400, 'group_id'],
        [{ action: 'set_group', group_id: 'north', tuids: ['T-1'], filter: { q: 'T' } }, 400, 'tuids'],
        [{ action: 'set_group', group_id: 'north' }, 400, 'tuids'],
        [{ action: 'set_group', group_id: 'north', tuids: [] }, 400, 'tuids'],
        [{ action: 'set_installation_status', tuids: ['T-1'] }, 400, 'installation_status'],
        [{ action: 'send_commands', tuids: ['T-1'] }, 400, 'commands'],
        [{ action: 'set_group', group_id: 'no-such-group', tuids: ['T-1'] }, 404, undefined],
      ] as const) {
        const response = await rest().post('/things/bulk', body);
        assert.equal(response.status, status, `${JSON.stringify(body)}: ${response.text}`);
        if (field)
          assert.ok(
            response.body.errors.some((e: { field: string }) => e.field === field),
            response.text,
          );
      }
      const mutation =
        'mutation ($t: [String!]) { bulkUpdateThings(action: "set_group", groupId: "north", tuids: $t) { tuid ok code message } }';
      assertGraphqlError(
        await installer.client.request(mutation, { t: ['T-1'] }),
        'BAD_USER_INPUT',
        /Cannot query field "bulkUpdateThings"/,
      );
      const done = dataOf(await manager.client.request(mutation, { t: ['T-1', 'x y'] }));
      assert.deepEqual(
        done.bulkUpdateThings.map((r: { ok: boolean; code: string | null }) => [r.ok, r.code]),
        [
          [true, null],
          [false, 'VALIDATION_FAILED'],
        ],
      );
    });
  });
}
