/** Deployment groups over REST (SPEC section 3): rename, delete, a delete racing assignments, and isolation between organizations. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { RestClient } from '../../helpers/rest-client.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { assertFieldRefused, groupCalls, groupTestServer, path } from './group-test-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`renaming, deleting and isolating groups over REST on ${target.name}`, { skip: target.skip }, () => {
    const context = groupTestServer(target);
    const { createGroup, assign, groupOf } = groupCalls(context);

    test('rename: things follow, the old id is gone, a taken id is 409, an unknown group 404', async () => {
      await createGroup('old-name', { group_description: 'kept' });
      await createGroup('taken');
      await assign('G-5', 'old-name');
      const taken = await context.rest.post('/groups/old-name/rename', { group_id: 'taken' });
      assert.equal(taken.status, 409, taken.text);
      assert.equal(await groupOf('G-5'), 'old-name', 'a refused rename moves nothing');
      const renamed = await context.rest.post('/groups/old-name/rename', { group_id: 'new-name' });
      assert.equal(renamed.status, 200, renamed.text);
      assert.deepEqual(renamed.body, { data: { group_id: 'new-name' } });
      assert.equal(await groupOf('G-5'), 'new-name');
      assert.deepEqual((await context.rest.get('/groups/new-name/things')).body.data.tuids, ['G-5']);
      assert.equal((await context.rest.get('/groups/old-name/things')).status, 404);
      assert.equal((await context.rest.get('/groups?q=new-name')).body.data[0].group_description, 'kept');
      assert.equal((await context.rest.post('/groups/old-name/rename', { group_id: 'other' })).status, 404);
      assert.equal((await context.rest.post('/groups/new-name/rename', { group_id: 'new-name' })).status, 200, 'the same id is a no-op');
      await assertFieldRefused(await context.rest.post('/groups/unassigned/rename', { group_id: 'x' }), 'groupid', 'the pseudo-group');
    });

    test('DELETE answers deleted: true and leaves the things unassigned; an unknown group is 404', async () => {
      await createGroup('doomed');
      await assign('G-2', 'doomed');
      const deleted = await context.rest.delete('/groups/doomed');
      assert.equal(deleted.status, 200, deleted.text);
      assert.deepEqual(deleted.body, { data: { group_id: 'doomed', deleted: true } });
      assert.equal(await groupOf('G-2'), 'unassigned');
      assert.ok((await context.rest.get('/groups/unassigned/things')).body.data.tuids.includes('G-2'));
      const again = await context.rest.delete('/groups/doomed');
      assert.equal(again.status, 404);
      assert.equal(again.body.message, 'No group doomed.');
      await assertFieldRefused(await context.rest.delete('/groups/unassigned'), 'groupid', 'the pseudo-group');
      await assertFieldRefused(await context.rest.delete(`/groups/${path('a b')}`), 'groupid', 'an invalid id');
    });

    test('assignments racing a delete never leave a thing in a group that no longer exists', async () => {
      await createGroup('racing');
      const tuids = Array.from({ length: 12 }, (_, i) => `RACE-G-${i}`);
      const results = await Promise.all([
        ...tuids.slice(0, 6).map((t) => assign(t, 'racing')),
        context.rest.delete('/groups/racing'),
        ...tuids.slice(6).map((t) => assign(t, 'racing')),
      ]);
      assert.ok(
        results.every((r) => r.status === 200 || r.status === 404),
        results.map((r) => r.status).join(),
      );
      assert.deepEqual(await context.server.app.store.things.listInGroup('acme', 'racing'), []);
    });

    test("another organization's groups and things answer exactly like unknown ones; groups are per organization", async () => {
      await createGroup('acme-only');
      await assign('G-3', 'acme-only');
      const notFound = (message: string) => ({ statusCode: 404, error: 'Not Found', message, code: 'NOT_FOUND' });
      const cases: [string, () => ReturnType<RestClient['get']>, string][] = [
        ['list things', () => context.rival.get('/groups/acme-only/things'), 'No group acme-only.'],
        ['rename', () => context.rival.post('/groups/acme-only/rename', { group_id: 'stolen' }), 'No group acme-only.'],
        ['delete', () => context.rival.delete('/groups/acme-only'), 'No group acme-only.'],
        ['assign own thing to it', () => assign('RIVAL-T', 'acme-only', context.rival), 'No group acme-only.'],
        ['read a thing group', () => context.rival.get('/things/G-3/group'), 'No thing G-3.'],
      ];
      for (const [what, call, message] of cases) {
        const response = await call();
        assert.equal(response.status, 404, `${what}: ${response.text}`);
        assert.deepEqual(response.body, notFound(message), what);
      }
      assert.deepEqual((await context.rival.get('/groups/unknown-group/things')).body, notFound('No group unknown-group.'));
      assert.ok(!(await context.rival.get('/groups')).body.data.some((g: { group_id: string }) => g.group_id === 'acme-only'));

      // The rival's own group of the same name: assigning acme's thing to it is 404 for the thing, and changes nothing.
      assert.equal((await createGroup('acme-only', {}, context.rival)).status, 200, 'another organization may have the same id');
      const foreignThing = await assign('G-3', 'acme-only', context.rival);
      assert.equal(foreignThing.status, 404);
      assert.deepEqual(foreignThing.body, notFound('No thing G-3.'));
      assert.equal((await assign('G-3', 'unassigned', context.rival)).status, 404);
      assert.equal(await groupOf('G-3'), 'acme-only');
      assert.equal((await context.server.app.store.things.get('G-3'))?.organizationId, 'acme');
      assert.equal((await context.rival.get('/groups/unassigned/things')).body.data.tuids.includes('G-3'), false);
      assert.deepEqual((await context.rest.get('/groups/acme-only/things')).body.data.tuids, ['G-3'], "acme's group is untouched");
    });
  });
}
