/** Deployment groups over REST (SPEC section 3): the id rule, create/list/rename/delete, membership, isolation. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

/** Ids every endpoint taking a group id must refuse with 400 naming the field. */
const invalidIds: [string, string][] = [
  ['empty', ''],
  ['65 characters', 'g'.repeat(65)],
  ['a space', 'north east'],
  ['a tab', 'north\teast'],
  ['a newline', 'north\n'],
  ['NBSP', 'north\u00a0east'],
  ['ideographic space', 'north\u3000east'],
  ['zero-width space', 'north\u200beast'],
  ['a control character', 'north\u0001'],
  ['a slash', 'north/east'],
  ['a plus', 'north+'],
  ['a hash', 'north#1'],
  ['unassigned', 'unassigned'],
  ['UNASSIGNED', 'UNASSIGNED'],
  ['Unassigned', 'Unassigned'],
];
/** `unassigned` names the pseudo-group where a group is referenced (assign), so it is not refused there. */
const invalidRefs = invalidIds.filter(([, id]) => id !== 'unassigned');

const path = (id: string) => encodeURIComponent(id);

for (const target of storeTargets) {
  describe(`deployment groups over REST on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let rival: RestClient;
    const createGroup = (group_id: unknown, extra: Record<string, unknown> = {}, as = rest) => as.post('/groups', { group_id, ...extra });
    const assign = (tuid: string, group_id: unknown, as = rest) => as.post(`/things/${tuid}/group`, { group_id });
    const groupOf = async (tuid: string) => (await rest.get(`/things/${tuid}/group`)).body.data.group_id as string;

    async function assertFieldRefused(response: { status: number; text: string; body: { code: string; errors: { field: string }[] } }, field: string, what: string) {
      assert.equal(response.status, 400, `${what}: ${response.text}`);
      assert.equal(response.body.code, 'VALIDATION_FAILED', what);
      assert.equal(response.body.errors[0]?.field, field, `${what}: ${response.text}`);
    }

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      rest = new RestClient(server);
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Rival', id: 'rival' });
      const created = await createApiClient(deps, { organizationId: 'rival', name: 'rival', clientId: 'rival-client' });
      rival = new RestClient(server, { client_id: created.client.clientId, client_secret: created.clientSecret });
      await publishUplinks(server, ['G-1', 'G-2', 'G-3', 'G-4', 'G-5'].map((tuid) => ({ tsmId: 1112, tsmEv: 10, tsmTs: 1_700_000_000, tsmTuid: tuid, uptime: 1 })));
    });
    after(() => server?.stop());

    test('POST /groups answers the group with its description (null when absent) and created_at in Unix seconds', async () => {
      const before = Math.floor(Date.now() / 1000);
      const described = await createGroup('north', { group_description: 'North site' });
      assert.equal(described.status, 200, described.text);
      assert.deepEqual(Object.keys(described.body.data).sort(), ['created_at', 'group_description', 'group_id']);
      assert.equal(described.body.data.group_id, 'north');
      assert.equal(described.body.data.group_description, 'North site');
      assert.ok(Number.isInteger(described.body.data.created_at) && described.body.data.created_at >= before && described.body.data.created_at <= before + 5);
      const bare = await createGroup('south');
      assert.deepEqual({ ...bare.body.data, created_at: 0 }, { group_id: 'south', group_description: null, created_at: 0 });
      assert.equal((await createGroup('nulled', { group_description: null })).body.data.group_description, null);
    });

    test('group ids: 64 characters and any non-space text are fine, also in paths; ids are case-sensitive', async () => {
      for (const id of ['g'.repeat(64), '北'.repeat(64), '😀'.repeat(64), 'ryhmä-1', 'site.7_b:c', 'CaseOnly', '%20?&=']) {
        const response = await createGroup(id);
        assert.equal(response.status, 200, `${id}: ${response.text}`);
        assert.equal(response.body.data.group_id, id);
        const things = await rest.get(`/groups/${path(id)}/things`);
        assert.equal(things.status, 200, `${id}: ${things.text}`);
        assert.equal(things.body.data.group_id, id);
      }
      assert.equal((await rest.get('/groups/caseonly/things')).status, 404, '`CaseOnly` is not `caseonly`');
    });

    for (const [name, id] of invalidIds) {
      test(`a group id with ${name} is 400 on create and on rename (body and path)`, async () => {
        await assertFieldRefused(await createGroup(id), 'group_id', 'create');
        await assertFieldRefused(await rest.post('/groups/south/rename', { group_id: id }), 'group_id', 'rename body');
        if (id !== '') await assertFieldRefused(await rest.post(`/groups/${path(id)}/rename`, { group_id: 'fresh' }), 'groupid', 'rename path');
      });
    }
    for (const [name, id] of invalidRefs) {
      test(`assigning to a group id with ${name} is 400 and changes nothing`, async () => {
        await assertFieldRefused(await assign('G-5', id), 'group_id', 'assign');
        assert.equal(await groupOf('G-5'), 'unassigned');
        if (id !== '') await assertFieldRefused(await rest.get(`/groups/${path(id)}/things`), 'groupid', 'list path');
      });
    }

    test('a wrong type, a missing or an unknown field is 400', async () => {
      await assertFieldRefused(await createGroup(7), 'group_id', 'number');
      await assertFieldRefused(await rest.post('/groups', { group_description: 'x' }), 'group_id', 'missing');
      await assertFieldRefused(await createGroup('extra-1', { colour: 'red' }), 'colour', 'unknown field');
      await assertFieldRefused(await createGroup('extra-2', { group_description: 5 }), 'group_description', 'description type');
      await assertFieldRefused(await assign('G-5', 5), 'group_id', 'assign type');
    });

    test('group_description: 1024 characters are fine, 1025 are 400', async () => {
      assert.equal((await createGroup('long-desc', { group_description: 'd'.repeat(1024) })).status, 200);
      await assertFieldRefused(await createGroup('too-long-desc', { group_description: 'd'.repeat(1025) }), 'group_description', '1025');
      assert.equal((await rest.get('/groups/too-long-desc/things')).status, 404, 'nothing was created');
    });

    test('creating an existing group is 409; the same id in another letter case is another group', async () => {
      await createGroup('dup');
      const again = await createGroup('dup', { group_description: 'again' });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'CONFLICT');
      assert.equal((await createGroup('DUP')).status, 200);
    });

    test('assigning: the group must exist (404), the answer names group and status, `unassigned` removes', async () => {
      await createGroup('assign-a');
      const unknown = await assign('G-1', 'no-such-group');
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { statusCode: 404, error: 'Not Found', message: 'No group no-such-group.', code: 'NOT_FOUND' });
      const assigned = await assign('G-1', 'assign-a');
      assert.equal(assigned.status, 200, assigned.text);
      assert.deepEqual(assigned.body, { data: { tuid: 'G-1', group_id: 'assign-a', installation_status: 'new' } });
      assert.deepEqual((await rest.get('/things/G-1/group')).body, { data: { tuid: 'G-1', group_id: 'assign-a' } });
      assert.equal((await rest.get('/things/G-1')).body.data.group_id, 'assign-a');
      const removed = await assign('G-1', 'unassigned');
      assert.deepEqual(removed.body, { data: { tuid: 'G-1', group_id: 'unassigned', installation_status: 'new' } });
      assert.equal(await groupOf('G-1'), 'unassigned');
      assert.equal((await rest.get('/things/NO-THING/group')).status, 404);
    });

    test('assigning a thing nobody owns claims it as new, its first history entry by the caller', async () => {
      await createGroup('claimers');
      const response = await assign('FRESH-1', 'claimers');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.data, { tuid: 'FRESH-1', group_id: 'claimers', installation_status: 'new' });
      const history = (await rest.get('/things/FRESH-1/installations')).body.data;
      assert.deepEqual(history.map((e: { installation_status: string; responsible: string }) => [e.installation_status, e.responsible]), [['new', testBootstrap.BOOTSTRAP_CLIENT_ID]]);
      assert.equal((await assign('FRESH-2', 'no-such-group')).status, 404);
      assert.equal((await rest.get('/things/FRESH-2')).status, 404, 'a refused assignment claims nothing');
    });

    test('GET /groups/{id}/things lists a group and `unassigned`; tuids is always an array', async () => {
      await createGroup('members');
      await createGroup('empty');
      await assign('G-3', 'members');
      await assign('G-2', 'members');
      const members = await rest.get('/groups/members/things');
      assert.equal(members.status, 200, members.text);
      assert.deepEqual(members.body.data.group_id, 'members');
      assert.deepEqual(members.body.data.tuids, ['G-2', 'G-3']);
      assert.deepEqual(members.body.data.things.map((t: { tuid: string; group_id: string }) => [t.tuid, t.group_id]), [['G-2', 'members'], ['G-3', 'members']]);
      assert.deepEqual(Object.keys(members.body.data.things[0]).sort(), ['battery_level', 'gateway_tuid', 'group_id', 'installation_status', 'location', 'timestamp', 'tuid', 'version']);
      assert.deepEqual((await rest.get('/groups/empty/things')).body, { data: { group_id: 'empty', tuids: [], things: [] } });
      const unassigned = (await rest.get('/groups/unassigned/things')).body.data;
      assert.equal(unassigned.group_id, 'unassigned');
      assert.ok(unassigned.tuids.includes('G-4') && !unassigned.tuids.includes('G-2'), JSON.stringify(unassigned.tuids));
      assert.ok(unassigned.things.every((t: { group_id: string }) => t.group_id === 'unassigned'));
      assert.equal((await rest.get('/groups/no-such-group/things')).status, 404);
    });

    test('GET /groups: sorted by id with thing counts and `unassigned`; `q` and `limit`', async () => {
      await createGroup('zz-east', { group_description: 'Eastern Pumps' });
      await createGroup('zz-west', { group_description: 'western pumps' });
      await createGroup('zz-mid');
      await assign('G-4', 'zz-east');
      const all = (await rest.get('/groups?limit=1000')).body.data as Record<string, unknown>[];
      const ids = all.map((g) => g.group_id as string);
      assert.deepEqual(ids, [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
      assert.ok(ids.includes('unassigned'));
      assert.ok(all.every((g) => 'group_description' in g && Number.isInteger(g.thing_count)), 'every element has every key');
      const unassigned = all.find((g) => g.group_id === 'unassigned')!;
      assert.deepEqual(unassigned, { group_id: 'unassigned', group_description: null, thing_count: (await rest.get('/groups/unassigned/things')).body.data.tuids.length, created_at: null });
      assert.equal(all.find((g) => g.group_id === 'zz-east')!.thing_count, 1);
      assert.equal(all.find((g) => g.group_id === 'zz-mid')!.thing_count, 0);

      const pumps = (await rest.get('/groups?q=PUMPS')).body.data;
      assert.deepEqual(pumps.map((g: { group_id: string }) => g.group_id), ['zz-east', 'zz-west'], 'description matches, ignoring case');
      assert.deepEqual((await rest.get('/groups?q=ZZ-')).body.data.map((g: { group_id: string }) => g.group_id), ['zz-east', 'zz-mid', 'zz-west'], 'id matches, ignoring case');
      const pseudo = (await rest.get('/groups?q=ASSIGN')).body.data.map((g: { group_id: string }) => g.group_id);
      assert.ok(pseudo.includes('unassigned') && pseudo.includes('assign-a'), JSON.stringify(pseudo));
      assert.deepEqual((await rest.get('/groups?q=no%20match%20anywhere')).body, { data: [] });

      const two = (await rest.get('/groups?q=zz&limit=2')).body.data;
      assert.deepEqual(two.map((g: { group_id: string }) => g.group_id), ['zz-east', 'zz-mid']);
      assert.equal((await rest.get('/groups')).body.data.length, Math.min(100, all.length), 'limit defaults to 100');
      for (const bad of ['0', '1001', 'x']) assert.equal((await rest.get(`/groups?limit=${bad}`)).status, 400, bad);
    });

    test('rename: things follow, the old id is gone, a taken id is 409, an unknown group 404', async () => {
      await createGroup('old-name', { group_description: 'kept' });
      await createGroup('taken');
      await assign('G-5', 'old-name');
      const taken = await rest.post('/groups/old-name/rename', { group_id: 'taken' });
      assert.equal(taken.status, 409, taken.text);
      assert.equal(await groupOf('G-5'), 'old-name', 'a refused rename moves nothing');
      const renamed = await rest.post('/groups/old-name/rename', { group_id: 'new-name' });
      assert.equal(renamed.status, 200, renamed.text);
      assert.deepEqual(renamed.body, { data: { group_id: 'new-name' } });
      assert.equal(await groupOf('G-5'), 'new-name');
      assert.deepEqual((await rest.get('/groups/new-name/things')).body.data.tuids, ['G-5']);
      assert.equal((await rest.get('/groups/old-name/things')).status, 404);
      assert.equal((await rest.get('/groups?q=new-name')).body.data[0].group_description, 'kept');
      assert.equal((await rest.post('/groups/old-name/rename', { group_id: 'other' })).status, 404);
      assert.equal((await rest.post('/groups/new-name/rename', { group_id: 'new-name' })).status, 200, 'the same id is a no-op');
      await assertFieldRefused(await rest.post('/groups/unassigned/rename', { group_id: 'x' }), 'groupid', 'the pseudo-group');
    });

    test('DELETE answers deleted: true and leaves the things unassigned; an unknown group is 404', async () => {
      await createGroup('doomed');
      await assign('G-2', 'doomed');
      const deleted = await rest.delete('/groups/doomed');
      assert.equal(deleted.status, 200, deleted.text);
      assert.deepEqual(deleted.body, { data: { group_id: 'doomed', deleted: true } });
      assert.equal(await groupOf('G-2'), 'unassigned');
      assert.ok((await rest.get('/groups/unassigned/things')).body.data.tuids.includes('G-2'));
      const again = await rest.delete('/groups/doomed');
      assert.equal(again.status, 404);
      assert.equal(again.body.message, 'No group doomed.');
      await assertFieldRefused(await rest.delete('/groups/unassigned'), 'groupid', 'the pseudo-group');
      await assertFieldRefused(await rest.delete(`/groups/${path('a b')}`), 'groupid', 'an invalid id');
    });

    test('assignments racing a delete never leave a thing in a group that no longer exists', async () => {
      await createGroup('racing');
      const tuids = Array.from({ length: 12 }, (_, i) => `RACE-G-${i}`);
      const results = await Promise.all([...tuids.slice(0, 6).map((t) => assign(t, 'racing')), rest.delete('/groups/racing'), ...tuids.slice(6).map((t) => assign(t, 'racing'))]);
      assert.ok(results.every((r) => r.status === 200 || r.status === 404), results.map((r) => r.status).join());
      assert.deepEqual(await server.app.store.things.listInGroup('acme', 'racing'), []);
    });

    test("another organization's groups and things answer exactly like unknown ones; groups are per organization", async () => {
      await createGroup('acme-only');
      await assign('G-3', 'acme-only');
      const notFound = (message: string) => ({ statusCode: 404, error: 'Not Found', message, code: 'NOT_FOUND' });
      const cases: [string, () => ReturnType<RestClient['get']>, string][] = [
        ['list things', () => rival.get('/groups/acme-only/things'), 'No group acme-only.'],
        ['rename', () => rival.post('/groups/acme-only/rename', { group_id: 'stolen' }), 'No group acme-only.'],
        ['delete', () => rival.delete('/groups/acme-only'), 'No group acme-only.'],
        ['assign own thing to it', () => assign('RIVAL-T', 'acme-only', rival), 'No group acme-only.'],
        ['read a thing group', () => rival.get('/things/G-3/group'), 'No thing G-3.'],
      ];
      for (const [what, call, message] of cases) {
        const response = await call();
        assert.equal(response.status, 404, `${what}: ${response.text}`);
        assert.deepEqual(response.body, notFound(message), what);
      }
      assert.deepEqual((await rival.get('/groups/unknown-group/things')).body, notFound('No group unknown-group.'));
      assert.ok(!(await rival.get('/groups')).body.data.some((g: { group_id: string }) => g.group_id === 'acme-only'));

      // The rival's own group of the same name: assigning acme's thing to it is 404 for the thing, and changes nothing.
      assert.equal((await createGroup('acme-only', {}, rival)).status, 200, 'another organization may have the same id');
      const foreignThing = await assign('G-3', 'acme-only', rival);
      assert.equal(foreignThing.status, 404);
      assert.deepEqual(foreignThing.body, notFound('No thing G-3.'));
      assert.equal((await assign('G-3', 'unassigned', rival)).status, 404);
      assert.equal(await groupOf('G-3'), 'acme-only');
      assert.equal((await server.app.store.things.get('G-3'))?.organizationId, 'acme');
      assert.equal((await rival.get('/groups/unassigned/things')).body.data.tuids.includes('G-3'), false);
      assert.deepEqual((await rest.get('/groups/acme-only/things')).body.data.tuids, ['G-3'], "acme's group is untouched");
    });
  });
}
