/** Deployment groups over REST (SPEC section 3), creating them: the id rule in bodies and paths, descriptions, conflicts. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { assertFieldRefused, groupCalls, groupTestServer, path } from './group-test-helpers.js';

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

for (const target of storeTargets) {
  describe(`creating deployment groups over REST on ${target.name}`, { skip: target.skip }, () => {
    const context = groupTestServer(target);
    const { createGroup, assign, groupOf } = groupCalls(context);

    test('POST /groups answers the group with its description (null when absent) and created_at in Unix seconds', async () => {
      const before = Math.floor(Date.now() / 1000);
      const described = await createGroup('north', { group_description: 'North site' });
      assert.equal(described.status, 200, described.text);
      assert.deepEqual(Object.keys(described.body.data).sort(), ['created_at', 'group_description', 'group_id']);
      assert.equal(described.body.data.group_id, 'north');
      assert.equal(described.body.data.group_description, 'North site');
      assert.ok(
        Number.isInteger(described.body.data.created_at) &&
          described.body.data.created_at >= before &&
          described.body.data.created_at <= before + 5,
      );
      const bare = await createGroup('south');
      assert.deepEqual({ ...bare.body.data, created_at: 0 }, { group_id: 'south', group_description: null, created_at: 0 });
      assert.equal((await createGroup('nulled', { group_description: null })).body.data.group_description, null);
    });

    test('group ids: 64 characters and any non-space text are fine, also in paths; ids are case-sensitive', async () => {
      for (const id of ['g'.repeat(64), '北'.repeat(64), '😀'.repeat(64), 'ryhmä-1', 'site.7_b:c', 'CaseOnly', '%20?&=']) {
        const response = await createGroup(id);
        assert.equal(response.status, 200, `${id}: ${response.text}`);
        assert.equal(response.body.data.group_id, id);
        const things = await context.rest.get(`/groups/${path(id)}/things`);
        assert.equal(things.status, 200, `${id}: ${things.text}`);
        assert.equal(things.body.data.group_id, id);
      }
      assert.equal((await context.rest.get('/groups/caseonly/things')).status, 404, '`CaseOnly` is not `caseonly`');
    });

    for (const [name, id] of invalidIds) {
      test(`a group id with ${name} is 400 on create and on rename (body and path)`, async () => {
        await assertFieldRefused(await createGroup(id), 'group_id', 'create');
        await assertFieldRefused(await context.rest.post('/groups/south/rename', { group_id: id }), 'group_id', 'rename body');
        if (id !== '')
          await assertFieldRefused(await context.rest.post(`/groups/${path(id)}/rename`, { group_id: 'fresh' }), 'groupid', 'rename path');
      });
    }

    for (const [name, id] of invalidRefs) {
      test(`assigning to a group id with ${name} is 400 and changes nothing`, async () => {
        await assertFieldRefused(await assign('G-5', id), 'group_id', 'assign');
        assert.equal(await groupOf('G-5'), 'unassigned');
        if (id !== '') await assertFieldRefused(await context.rest.get(`/groups/${path(id)}/things`), 'groupid', 'list path');
      });
    }

    test('a wrong type, a missing or an unknown field is 400', async () => {
      await assertFieldRefused(await createGroup(7), 'group_id', 'number');
      await assertFieldRefused(await context.rest.post('/groups', { group_description: 'x' }), 'group_id', 'missing');
      await assertFieldRefused(await createGroup('extra-1', { colour: 'red' }), 'colour', 'unknown field');
      await assertFieldRefused(await createGroup('extra-2', { group_description: 5 }), 'group_description', 'description type');
      await assertFieldRefused(await assign('G-5', 5), 'group_id', 'assign type');
    });

    test('group_description: 1024 characters are fine, 1025 are 400', async () => {
      assert.equal((await createGroup('long-desc', { group_description: 'd'.repeat(1024) })).status, 200);
      await assertFieldRefused(await createGroup('too-long-desc', { group_description: 'd'.repeat(1025) }), 'group_description', '1025');
      assert.equal((await context.rest.get('/groups/too-long-desc/things')).status, 404, 'nothing was created');
    });

    test('creating an existing group is 409; the same id in another letter case is another group', async () => {
      await createGroup('dup');
      const again = await createGroup('dup', { group_description: 'again' });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'CONFLICT');
      assert.equal((await createGroup('DUP')).status, 200);
    });
  });
}
