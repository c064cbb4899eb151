/** Deployment groups over REST (SPEC section 3), membership: assigning things (and claiming them), a group's things, the group list. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { testBootstrap } from '../../helpers/test-app.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { groupCalls, groupTestServer } from './group-test-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`group membership over REST on ${target.name}`, { skip: target.skip }, () => {
    const context = groupTestServer(target);
    const { createGroup, assign, groupOf } = groupCalls(context);

    test('assigning: the group must exist (404), the answer names group and status, `unassigned` removes', async () => {
      await createGroup('assign-a');
      const unknown = await assign('G-1', 'no-such-group');
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { statusCode: 404, error: 'Not Found', message: 'No group no-such-group.', code: 'NOT_FOUND' });
      const assigned = await assign('G-1', 'assign-a');
      assert.equal(assigned.status, 200, assigned.text);
      assert.deepEqual(assigned.body, { data: { tuid: 'G-1', group_id: 'assign-a', installation_status: 'new' } });
      assert.deepEqual((await context.rest.get('/things/G-1/group')).body, { data: { tuid: 'G-1', group_id: 'assign-a' } });
      assert.equal((await context.rest.get('/things/G-1')).body.data.group_id, 'assign-a');
      const removed = await assign('G-1', 'unassigned');
      assert.deepEqual(removed.body, { data: { tuid: 'G-1', group_id: 'unassigned', installation_status: 'new' } });
      assert.equal(await groupOf('G-1'), 'unassigned');
      assert.equal((await context.rest.get('/things/NO-THING/group')).status, 404);
    });

    test('assigning a thing nobody owns claims it as new, its first history entry by the caller', async () => {
      await createGroup('claimers');
      const response = await assign('FRESH-1', 'claimers');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.data, { tuid: 'FRESH-1', group_id: 'claimers', installation_status: 'new' });
      const history = (await context.rest.get('/things/FRESH-1/installations')).body.data;
      assert.deepEqual(
        history.map((e: { installation_status: string; responsible: string }) => [e.installation_status, e.responsible]),
        [['new', testBootstrap.BOOTSTRAP_CLIENT_ID]],
      );
      assert.equal((await assign('FRESH-2', 'no-such-group')).status, 404);
      assert.equal((await context.rest.get('/things/FRESH-2')).status, 404, 'a refused assignment claims nothing');
    });

    test('GET /groups/{id}/things lists a group and `unassigned`; tuids is always an array', async () => {
      await createGroup('members');
      await createGroup('empty');
      await assign('G-3', 'members');
      await assign('G-2', 'members');
      const members = await context.rest.get('/groups/members/things');
      assert.equal(members.status, 200, members.text);
      assert.deepEqual(members.body.data.group_id, 'members');
      assert.deepEqual(members.body.data.tuids, ['G-2', 'G-3']);
      assert.deepEqual(
        members.body.data.things.map((t: { tuid: string; group_id: string }) => [t.tuid, t.group_id]),
        [
          ['G-2', 'members'],
          ['G-3', 'members'],
        ],
      );
      assert.deepEqual(Object.keys(members.body.data.things[0]).sort(), [
        'battery_level',
        'gateway_tuid',
        'group_id',
        'installation_status',
        'labels',
        'location',
        'name',
        'timestamp',
        'tuid',
        'version',
      ]);
      assert.deepEqual((await context.rest.get('/groups/empty/things')).body, { data: { group_id: 'empty', tuids: [], things: [] } });
      const unassigned = (await context.rest.get('/groups/unassigned/things')).body.data;
      assert.equal(unassigned.group_id, 'unassigned');
      assert.ok(unassigned.tuids.includes('G-4') && !unassigned.tuids.includes('G-2'), JSON.stringify(unassigned.tuids));
      assert.ok(unassigned.things.every((t: { group_id: string }) => t.group_id === 'unassigned'));
      assert.equal((await context.rest.get('/groups/no-such-group/things')).status, 404);
    });

    test('GET /groups: sorted by id with thing counts and `unassigned`; `q` and `limit`', async () => {
      await createGroup('zz-east', { group_description: 'Eastern Pumps' });
      await createGroup('zz-west', { group_description: 'western pumps' });
      await createGroup('zz-mid');
      await assign('G-4', 'zz-east');
      const all = (await context.rest.get('/groups?limit=1000')).body.data as Record<string, unknown>[];
      const ids = all.map((g) => g.group_id as string);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
      );
      assert.ok(ids.includes('unassigned'));
      assert.ok(
        all.every((g) => 'group_description' in g && Number.isInteger(g.thing_count)),
        'every element has every key',
      );
      const unassigned = all.find((g) => g.group_id === 'unassigned')!;
      assert.deepEqual(unassigned, {
        group_id: 'unassigned',
        group_description: null,
        thing_count: (await context.rest.get('/groups/unassigned/things')).body.data.tuids.length,
        created_at: null,
      });
      assert.equal(all.find((g) => g.group_id === 'zz-east')!.thing_count, 1);
      assert.equal(all.find((g) => g.group_id === 'zz-mid')!.thing_count, 0);

      const pumps = (await context.rest.get('/groups?q=PUMPS')).body.data;
      assert.deepEqual(
        pumps.map((g: { group_id: string }) => g.group_id),
        ['zz-east', 'zz-west'],
        'description matches, ignoring case',
      );
      assert.deepEqual(
        (await context.rest.get('/groups?q=ZZ-')).body.data.map((g: { group_id: string }) => g.group_id),
        ['zz-east', 'zz-mid', 'zz-west'],
        'id matches, ignoring case',
      );
      const pseudo = (await context.rest.get('/groups?q=ASSIGN')).body.data.map((g: { group_id: string }) => g.group_id);
      assert.ok(pseudo.includes('unassigned') && pseudo.includes('assign-a'), JSON.stringify(pseudo));
      assert.deepEqual((await context.rest.get('/groups?q=no%20match%20anywhere')).body, { data: [] });

      const two = (await context.rest.get('/groups?q=zz&limit=2')).body.data;
      assert.deepEqual(
        two.map((g: { group_id: string }) => g.group_id),
        ['zz-east', 'zz-mid'],
      );
      assert.equal((await context.rest.get('/groups')).body.data.length, Math.min(100, all.length), 'limit defaults to 100');
      for (const bad of ['0', '1001', 'x']) assert.equal((await context.rest.get(`/groups?limit=${bad}`)).status, 400, bad);
    });
  });
}
