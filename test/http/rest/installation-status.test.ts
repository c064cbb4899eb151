/** POST and GET /things/{tuid}/installations (SPEC section 3): the state machine over HTTP and the history it writes. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { installationStatuses, type InstallationStatus } from '../../../src/domain/things/thing-types.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';
import { client, installationCalls, installationTestServer, nowS } from './installation-helpers.js';

after(cleanupStores);
after(closeMqttClients);

/** The moves of SPEC section 3, written out by hand (the unit test checks the table; this checks the HTTP answers). */
const allowed: Record<InstallationStatus, InstallationStatus[]> = {
  new: ['installed', 'quarantine', 'retired'],
  installed: ['uninstalled', 'quarantine', 'retired'],
  uninstalled: ['installed', 'quarantine', 'retired'],
  quarantine: ['installed', 'uninstalled', 'retired'],
  retired: [],
};

for (const target of storeTargets) {
  describe(`installation status over REST on ${target.name}`, { skip: target.skip }, () => {
    const context = installationTestServer(target);
    const { setStatus, history, thingIn } = installationCalls(context);

    test('a thing first seen in an uplink starts as new; that is the first entry of its history, by `uplink`', async () => {
      await publishUplinks(context.server, [{ tsmId: 1112, tsmEv: 10, tsmTs: 1_700_000_000, tsmTuid: 'UP-1', uptime: 5 }]);
      const response = await history('UP-1');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { data: [{ installation_status: 'new', timestamp: nowS, responsible: 'uplink' }] });
    });

    test('POST answers the thing, its status and group, and the entry (Unix seconds, responsible client)', async () => {
      await publishUplinks(context.server, [{ tsmId: 1112, tsmEv: 10, tsmTs: 1_700_000_000, tsmTuid: 'UP-2', uptime: 5 }]);
      context.clock.advance(2_000);
      const response = await setStatus('UP-2', 'installed');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, {
        data: { tuid: 'UP-2', installation_status: 'installed', group_id: 'unassigned', timestamp: nowS + 2, responsible: client },
      });
      assert.deepEqual((await history('UP-2')).body.data, [
        { installation_status: 'installed', timestamp: nowS + 2, responsible: client },
        { installation_status: 'new', timestamp: nowS, responsible: 'uplink' },
      ]);
      assert.equal((await context.rest.get('/things/UP-2')).body.data.installation_status, 'installed');
    });

    for (const from of installationStatuses) {
      for (const to of installationStatuses) {
        if (from === to) continue;
        const ok = allowed[from].includes(to);
        test(`${from} -> ${to}: ${ok ? '200' : `409 naming ${JSON.stringify(allowed[from])}`}`, async () => {
          const tuid = await thingIn(from, `SM-${from}-${to}`);
          const before = (await history(tuid)).body.data;
          const response = await setStatus(tuid, to);
          if (ok) {
            assert.equal(response.status, 200, response.text);
            assert.equal(response.body.data.installation_status, to);
            assert.deepEqual(
              (await history(tuid)).body.data.map((e: { installation_status: string }) => e.installation_status),
              [to, ...before.map((e: { installation_status: string }) => e.installation_status)],
            );
            return;
          }
          assert.equal(response.status, 409, response.text);
          assert.equal(response.body.code, 'INVALID_TRANSITION');
          assert.deepEqual(response.body.allowed, allowed[from]);
          assert.deepEqual((await history(tuid)).body.data, before, 'a refused move writes nothing');
          assert.equal((await context.rest.get(`/things/${tuid}`)).body.data.installation_status, from);
        });
      }
    }

    for (const status of installationStatuses) {
      test(`setting ${status} again is a 200 no-op answering the entry that set it; the history is unchanged`, async () => {
        const tuid = await thingIn(status, `SAME-${status}`);
        const before = (await history(tuid)).body.data;
        context.clock.advance(1_000);
        const response = await setStatus(tuid, status);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.data, {
          tuid,
          installation_status: status,
          group_id: 'unassigned',
          timestamp: before[0].timestamp,
          responsible: client,
        });
        assert.deepEqual((await history(tuid)).body.data, before);
      });
    }

    test('an unknown status, a wrong type, a missing or an unknown field is 400 naming the field, and changes nothing', async () => {
      const tuid = await thingIn('installed', 'BAD-STATUS');
      for (const body of [
        { installation_status: 'deployed' },
        { installation_status: 'INSTALLED' },
        { installation_status: 3 },
        { installation_status: null },
        {},
      ]) {
        const response = await context.rest.post(`/things/${tuid}/installations`, body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.equal(response.body.code, 'VALIDATION_FAILED');
        assert.equal(response.body.errors[0].field, 'installation_status', response.text);
      }
      const extra = await context.rest.post(`/things/${tuid}/installations`, { installation_status: 'retired', note: 'x' });
      assert.equal(extra.status, 400);
      assert.equal(extra.body.errors[0].field, 'note');
      assert.equal((await history(tuid)).body.data.length, 2);
      assert.equal((await context.rest.post('/things/bad%20tuid/installations', { installation_status: 'installed' })).status, 400);
      assert.equal((await context.rest.post('/things/NEVER-1/installations', { installation_status: 'bogus' })).status, 400);
      assert.equal((await context.rest.get('/things/NEVER-1')).status, 404, 'a refused request creates nothing');
    });

    test('the history is newest first; `limit` keeps the newest N and must be 1 to 1000', async () => {
      const tuid = 'HIST-1';
      for (const status of ['installed', 'uninstalled', 'installed', 'quarantine'] as const) {
        context.clock.advance(1_000);
        assert.equal((await setStatus(tuid, status)).status, 200);
      }
      const all = (await history(tuid)).body.data as { installation_status: string; timestamp: number }[];
      assert.deepEqual(
        all.map((e) => e.installation_status),
        ['quarantine', 'installed', 'uninstalled', 'installed', 'new'],
      );
      assert.ok(all.every((e, i) => i === 0 || all[i - 1]!.timestamp >= e.timestamp));
      assert.deepEqual((await history(tuid, '?limit=2')).body.data, all.slice(0, 2));
      assert.deepEqual((await history(tuid, '?limit=1000')).body.data, all);
      for (const bad of ['0', '1001', '-1', '1.5', 'abc']) {
        const response = await history(tuid, `?limit=${bad}`);
        assert.equal(response.status, 400, bad);
        assert.equal(response.body.errors[0].field, 'limit');
      }
    });

    test('the history of an unknown thing is 404; a bad TUID is 400', async () => {
      const response = await history('NOBODY-1');
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, { statusCode: 404, error: 'Not Found', message: 'No thing NOBODY-1.', code: 'NOT_FOUND' });
      assert.equal((await history('bad%2Ftuid')).status, 400);
    });
  });
}
