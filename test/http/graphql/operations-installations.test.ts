/**
 * GraphQL installation status (SPEC section 4): setting it, the moves allowed from each status, and its history. The
 * same domain rules as REST; bad arguments are named by their GraphQL names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ManualClock } from '../../../src/domain/clock.js';
import { installationStatuses } from '../../../src/domain/things/thing-types.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf } from '../../helpers/graphql-users.js';
import { closeMqttClients } from '../../helpers/mqtt-clients.js';
import type { TestApp } from '../../helpers/test-app.js';
import { nowS, seedFieldService, startFieldServiceServer, type FieldService } from './operations-field-service-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const setStatus =
  'mutation S($tuid: ID!, $status: String!) { setInstallationStatus(tuid: $tuid, status: $status) { tuid installationStatus timestamp responsible } }';

for (const target of storeTargets) {
  describe(`GraphQL installation status on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let clock: ManualClock;
    let installer: GraphqlClient;
    let installerEmail: string;
    let manager: GraphqlClient;
    let statusOf: FieldService['statusOf'];

    before(async () => {
      ({ server, clock } = await startFieldServiceServer(target));
      ({ installer, installerEmail, manager, statusOf } = await seedFieldService(server));
    });
    after(() => server?.stop());

    test("setInstallationStatus answers {tuid, installationStatus, timestamp, responsible}, responsible the user's e-mail", async () => {
      clock.advance(2_000);
      const response = await installer.request(setStatus, { tuid: 'F-1', status: 'installed' });
      assert.deepEqual(dataOf(response).setInstallationStatus, {
        tuid: 'F-1',
        installationStatus: 'installed',
        timestamp: nowS + 2,
        responsible: installerEmail,
      });
      assert.equal((await statusOf('F-1')).installationStatus, 'installed');
      const history = dataOf(
        await installer.request('{ installations(tuid: "F-1") { installationStatus timestamp responsible } }'),
      ).installations;
      assert.deepEqual(history, [
        { installationStatus: 'installed', timestamp: nowS + 2, responsible: installerEmail },
        { installationStatus: 'new', timestamp: nowS, responsible: 'uplink' },
      ]);
      const full = await installer.request(
        'mutation { setInstallationStatus(tuid: "F-1", status: "installed") { tuid installationStatus groupId timestamp responsible } }',
      );
      assert.deepEqual(
        dataOf(full).setInstallationStatus,
        { tuid: 'F-1', installationStatus: 'installed', groupId: 'unassigned', timestamp: nowS + 2, responsible: installerEmail },
        'the same status again is a no-op',
      );
    });

    test('setInstallationStatus: a disallowed move is CONFLICT naming the allowed next states; nothing changes', async () => {
      const error = assertGraphqlError(
        await installer.request(setStatus, { tuid: 'F-2', status: 'uninstalled' }),
        'CONFLICT',
        'The installation status cannot move from new to uninstalled; allowed next: installed, quarantine, retired.',
      );
      assert.deepEqual(error.extensions?.allowed, ['installed', 'quarantine', 'retired']);
      assert.equal((await statusOf('F-2')).installationStatus, 'new');
      await installer.request(setStatus, { tuid: 'F-2', status: 'retired' });
      const final = assertGraphqlError(await installer.request(setStatus, { tuid: 'F-2', status: 'installed' }), 'CONFLICT');
      assert.deepEqual(final.extensions?.allowed, []);
    });

    test('Thing.nextInstallationStatuses offers exactly the moves setInstallationStatus accepts, none once retired', async () => {
      const next = async (tuid: string): Promise<string[]> =>
        dataOf(await installer.request(`{ thing(tuid: "${tuid}") { installationStatus nextInstallationStatuses } }`)).thing
          .nextInstallationStatuses;
      dataOf(await installer.request(setStatus, { tuid: 'NEXT-1', status: 'new' }));
      // Along a path through every status: each status not offered is refused naming the offered ones, and the
      // path's next step (offered) is applied.
      let current = 'new';
      for (const step of ['quarantine', 'uninstalled', 'installed', 'retired']) {
        const offered = await next('NEXT-1');
        assert.ok(offered.includes(step), `${current} offers ${step}`);
        for (const status of installationStatuses.filter((s) => s !== current && !offered.includes(s))) {
          const error = assertGraphqlError(await installer.request(setStatus, { tuid: 'NEXT-1', status }), 'CONFLICT');
          assert.deepEqual(error.extensions?.allowed, offered, `${current} -> ${status}`);
        }
        dataOf(await installer.request(setStatus, { tuid: 'NEXT-1', status: step }));
        current = step;
      }
      assert.deepEqual(await next('NEXT-1'), []);
      const page = dataOf(await installer.request('{ things(q: "NEXT-1") { nodes { tuid nextInstallationStatuses } } }')).things;
      assert.deepEqual(page.nodes, [{ tuid: 'NEXT-1', nextInstallationStatuses: [] }], 'the same field on a page of things');
    });

    test('setInstallationStatus: an unknown status or a bad TUID is BAD_USER_INPUT naming the argument', async () => {
      for (const status of ['bogus', 'INSTALLED', '']) {
        const response = await installer.request(setStatus, { tuid: 'F-3', status });
        assertBadInput(response, ['status']);
        assert.match(response.body.errors![0]!.message, /^status must be one of new, installed, uninstalled, quarantine, retired$/);
      }
      assertBadInput(await installer.request(setStatus, { tuid: 'bad tuid', status: 'installed' }), ['tuid']);
      assert.equal((await statusOf('F-3')).installationStatus, 'new');
    });

    test('setInstallationStatus claims a thing nobody owns; a refused move on one claims nothing', async () => {
      assert.equal(
        dataOf(await installer.request(setStatus, { tuid: 'FRESH-1', status: 'quarantine' })).setInstallationStatus.installationStatus,
        'quarantine',
      );
      const history = dataOf(await manager.request('{ installations(tuid: "FRESH-1") { installationStatus responsible } }')).installations;
      assert.deepEqual(history, [
        { installationStatus: 'quarantine', responsible: installerEmail },
        { installationStatus: 'new', responsible: installerEmail },
      ]);
      assertGraphqlError(await installer.request(setStatus, { tuid: 'FRESH-2', status: 'uninstalled' }), 'CONFLICT');
      assert.equal(dataOf(await manager.request('{ thing(tuid: "FRESH-2") { tuid } }')).thing, null);
    });

    test('installations: newest first, limit 1..1000; unknown thing NOT_FOUND', async () => {
      assert.equal(
        dataOf(await installer.request('{ installations(tuid: "F-1", limit: 1) { installationStatus } }')).installations.length,
        1,
      );
      for (const limit of [0, 1001])
        assertBadInput(await installer.request(`{ installations(tuid: "F-1", limit: ${limit}) { installationStatus } }`), ['limit']);
      assertGraphqlError(await installer.request('{ installations(tuid: "NOPE") { installationStatus } }'), 'NOT_FOUND', 'No thing NOPE.');
    });
  });
}
