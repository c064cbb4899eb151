/** POST and GET /things/{tuid}/installations (SPEC section 3): the state machine over HTTP, claims, history. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import { installationStatuses, type InstallationStatus } from '../../../src/domain/things/thing-types.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const client = testBootstrap.BOOTSTRAP_CLIENT_ID;
/** The platform's clock during these tests: 500 ms past a whole second, so seconds must be floored. */
const nowMs = 1_790_000_000_500;
const nowS = 1_790_000_000;

/** The moves of SPEC section 3, written out by hand (the unit test checks the table; this checks the HTTP answers). */
const allowed: Record<InstallationStatus, InstallationStatus[]> = {
  new: ['installed', 'quarantine', 'retired'],
  installed: ['uninstalled', 'quarantine', 'retired'],
  uninstalled: ['installed', 'quarantine', 'retired'],
  quarantine: ['installed', 'uninstalled', 'retired'],
  retired: [],
};
/** Allowed moves from `new` that bring a fresh thing to each status. */
const pathTo: Record<InstallationStatus, InstallationStatus[]> = {
  new: ['new'],
  installed: ['installed'],
  uninstalled: ['installed', 'uninstalled'],
  quarantine: ['quarantine'],
  retired: ['retired'],
};

for (const target of storeTargets) {
  describe(`installation status over REST on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let rival: RestClient;
    const clock = new ManualClock(nowMs);
    const setStatus = (tuid: string, status: unknown, as = rest) =>
      as.post(`/things/${tuid}/installations`, { installation_status: status });
    const history = (tuid: string, query = '', as = rest) => as.get(`/things/${tuid}/installations${query}`);

    /** A fresh thing of the caller's organization in `status`, reached by allowed moves. */
    async function thingIn(status: InstallationStatus, tuid: string): Promise<string> {
      for (const step of pathTo[status]) assert.equal((await setStatus(tuid, step)).status, 200);
      return tuid;
    }

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() }, { clock });
      rest = new RestClient(server);
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Rival', id: 'rival' });
      const created = await createApiClient(deps, { organizationId: 'rival', name: 'rival', clientId: 'rival-client' });
      rival = new RestClient(server, { client_id: created.client.clientId, client_secret: created.clientSecret });
    });
    after(() => server?.stop());

    test('a thing first seen in an uplink starts as new; that is the first entry of its history, by `uplink`', async () => {
      await publishUplinks(server, [{ tsmId: 1112, tsmEv: 10, tsmTs: 1_700_000_000, tsmTuid: 'UP-1', uptime: 5 }]);
      const response = await history('UP-1');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { data: [{ installation_status: 'new', timestamp: nowS, responsible: 'uplink' }] });
    });

    test('POST answers the thing, its status and group, and the entry (Unix seconds, responsible client)', async () => {
      await publishUplinks(server, [{ tsmId: 1112, tsmEv: 10, tsmTs: 1_700_000_000, tsmTuid: 'UP-2', uptime: 5 }]);
      clock.advance(2_000);
      const response = await setStatus('UP-2', 'installed');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, {
        data: { tuid: 'UP-2', installation_status: 'installed', group_id: 'unassigned', timestamp: nowS + 2, responsible: client },
      });
      assert.deepEqual((await history('UP-2')).body.data, [
        { installation_status: 'installed', timestamp: nowS + 2, responsible: client },
        { installation_status: 'new', timestamp: nowS, responsible: 'uplink' },
      ]);
      assert.equal((await rest.get('/things/UP-2')).body.data.installation_status, 'installed');
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
          assert.equal((await rest.get(`/things/${tuid}`)).body.data.installation_status, from);
        });
      }
    }

    for (const status of installationStatuses) {
      test(`setting ${status} again is a 200 no-op answering the entry that set it; the history is unchanged`, async () => {
        const tuid = await thingIn(status, `SAME-${status}`);
        const before = (await history(tuid)).body.data;
        clock.advance(1_000);
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
        const response = await rest.post(`/things/${tuid}/installations`, body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.equal(response.body.code, 'VALIDATION_FAILED');
        assert.equal(response.body.errors[0].field, 'installation_status', response.text);
      }
      const extra = await rest.post(`/things/${tuid}/installations`, { installation_status: 'retired', note: 'x' });
      assert.equal(extra.status, 400);
      assert.equal(extra.body.errors[0].field, 'note');
      assert.equal((await history(tuid)).body.data.length, 2);
      assert.equal((await rest.post('/things/bad%20tuid/installations', { installation_status: 'installed' })).status, 400);
      assert.equal((await rest.post('/things/NEVER-1/installations', { installation_status: 'bogus' })).status, 400);
      assert.equal((await rest.get('/things/NEVER-1')).status, 404, 'a refused request creates nothing');
    });

    test('POST claims a thing nobody owns: its history is `new`, then the new status, both by the caller', async () => {
      clock.advance(1_000);
      const response = await setStatus('CLAIM-1', 'quarantine');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.data, {
        tuid: 'CLAIM-1',
        installation_status: 'quarantine',
        group_id: 'unassigned',
        timestamp: Math.floor(clock.now() / 1000),
        responsible: client,
      });
      const entries = (await history('CLAIM-1')).body.data;
      assert.deepEqual(
        entries.map((e: { installation_status: string; responsible: string }) => [e.installation_status, e.responsible]),
        [
          ['quarantine', client],
          ['new', client],
        ],
      );
      const summary = await rest.get('/things/CLAIM-1');
      assert.equal(summary.status, 200);
      assert.equal(summary.body.data.installation_status, 'quarantine');
    });

    test('POST `new` on a thing nobody owns claims it with a history of one entry', async () => {
      assert.equal((await setStatus('CLAIM-NEW', 'new')).status, 200);
      assert.deepEqual(
        (await history('CLAIM-NEW')).body.data.map((e: { installation_status: string }) => e.installation_status),
        ['new'],
      );
    });

    test('a disallowed move on a thing nobody owns is 409 and creates nothing', async () => {
      const response = await setStatus('NOT-CREATED', 'uninstalled');
      assert.equal(response.status, 409, response.text);
      assert.deepEqual(response.body.allowed, ['installed', 'quarantine', 'retired']);
      assert.equal((await rest.get('/things/NOT-CREATED')).status, 404);
      assert.equal((await history('NOT-CREATED')).status, 404);
      assert.equal(await server.app.store.things.get('NOT-CREATED'), undefined);
    });

    test('the history is newest first; `limit` keeps the newest N and must be 1 to 1000', async () => {
      const tuid = 'HIST-1';
      for (const status of ['installed', 'uninstalled', 'installed', 'quarantine'] as const) {
        clock.advance(1_000);
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

    test("another organization's thing answers exactly like an unknown one, and is neither claimed nor changed", async () => {
      const tuid = await thingIn('installed', 'OWNED-1');
      const before = (await history(tuid)).body.data;
      const unknownRead = await history('OWNED-2', '', rival);
      const foreignRead = await history(tuid, '', rival);
      assert.equal(foreignRead.status, 404);
      assert.deepEqual(foreignRead.body, { ...unknownRead.body, message: unknownRead.body.message.replace('OWNED-2', tuid) });
      for (const status of ['installed', 'uninstalled', 'retired', 'new']) {
        const write = await setStatus(tuid, status, rival);
        assert.equal(write.status, 404, write.text);
        assert.deepEqual(write.body, foreignRead.body);
      }
      assert.deepEqual((await history(tuid)).body.data, before);
      assert.equal((await server.app.store.things.get(tuid))?.organizationId, 'acme');
    });

    test('concurrent claims by two organizations: one owns the thing, with one `new` entry; the other gets 404', async () => {
      const tuid = 'RACE-1';
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => setStatus(tuid, 'installed', i % 2 === 0 ? rest : rival)));
      const owner = (await server.app.store.things.get(tuid))!.organizationId;
      const ownerClient = owner === 'acme' ? rest : rival;
      results.forEach((r, i) => assert.equal(r.status, (i % 2 === 0) === (owner === 'acme') ? 200 : 404, r.text));
      assert.deepEqual(
        (await history(tuid, '', ownerClient)).body.data.map((e: { installation_status: string }) => e.installation_status),
        ['installed', 'new'],
      );
    });

    test('seed 000 installation flow: TUID from IMC + PSN, then installation, then group; both 200; the summary shows both', async () => {
      const imc = 'IMC0042';
      const psn = 'PSN123456';
      const tuid = imc + psn;
      assert.equal(tuid, 'IMC0042PSN123456');
      assert.equal((await rest.post('/groups', { group_id: 'flow-north', group_description: 'North site' })).status, 200);
      const installed = await setStatus(tuid, 'installed');
      assert.equal(installed.status, 200, installed.text);
      const grouped = await rest.post(`/things/${tuid}/group`, { group_id: 'flow-north' });
      assert.equal(grouped.status, 200, grouped.text);
      assert.deepEqual(grouped.body, { data: { tuid, group_id: 'flow-north', installation_status: 'installed' } });
      const summary = await rest.get(`/things/${tuid}`);
      assert.equal(summary.status, 200);
      assert.equal(summary.body.data.installation_status, 'installed');
      assert.equal(summary.body.data.group_id, 'flow-north');
    });
  });
}
