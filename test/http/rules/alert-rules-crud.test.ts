/** SPEC section 13: alert rules over REST and GraphQL on both stores: create, read, change, delete, bad input, roles, tenancy. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { assertBadInput, assertGraphqlError, dataOf, signInAs, type SignedInUser } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

const freezer = {
  name: 'freezer too warm',
  tsm_id: 1100,
  field: 'env.temp',
  op: 'gt',
  threshold: 8,
  clear_threshold: 6,
  for_s: 600,
  scope: { group_ids: ['freezers'] },
  severity: 'critical',
};

const ruleFields = 'id name tsmId field op threshold clearThreshold forS scope { groupIds tuids } severity enabled channels';

for (const target of storeTargets) {
  describe(`alert rules on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let otherRest: RestClient;
    let viewer: SignedInUser;
    let manager: SignedInUser;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      rest = new RestClient(server);
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Other', id: 'other' });
      const other = await createApiClient(deps, { organizationId: 'other', name: 'other' });
      otherRest = new RestClient(server, { client_id: other.client.clientId, client_secret: other.clientSecret });
      [viewer, manager] = [await signInAs(server, 'Viewer'), await signInAs(server, 'Manager')];
    });
    after(() => server?.stop());

    test('REST: a rule is created with its defaults, read, listed, changed and deleted', async () => {
      const created = await rest.post('/alert-rules', freezer);
      assert.equal(created.status, 200, created.text);
      const rule = created.body.data;
      assert.match(rule.id, /^rul_/);
      assert.deepEqual(
        { ...rule, id: undefined, created_at: undefined, updated_at: undefined },
        {
          ...freezer,
          id: undefined,
          scope: { group_ids: ['freezers'], tuids: null },
          enabled: true,
          channels: [],
          created_at: undefined,
          updated_at: undefined,
        },
      );
      assert.deepEqual((await rest.get(`/alert-rules/${rule.id}`)).body.data, rule);
      assert.deepEqual(
        (await rest.get('/alert-rules')).body.data.map((r: { id: string }) => r.id),
        [rule.id],
      );

      const changed = await rest.request('PATCH', `/alert-rules/${rule.id}`, {
        body: { name: 'freezer warm', enabled: false, scope: { tuids: ['F-1'] }, clear_threshold: null },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.data.name, 'freezer warm');
      assert.equal(changed.body.data.enabled, false);
      assert.equal(changed.body.data.clear_threshold, null);
      assert.deepEqual(changed.body.data.scope, { group_ids: null, tuids: ['F-1'] });
      assert.equal(changed.body.data.threshold, 8, 'what the change does not name stays');

      assert.equal((await rest.delete(`/alert-rules/${rule.id}`)).status, 200);
      assert.equal((await rest.get(`/alert-rules/${rule.id}`)).status, 404);
      assert.equal((await rest.delete(`/alert-rules/${rule.id}`)).status, 404);
    });

    test('REST: bad input is refused naming each field, and nothing is created', async () => {
      const before = (await rest.get('/alert-rules')).body.data.length;
      const refused = async (body: Record<string, unknown>, fields: string[]) => {
        const response = await rest.post('/alert-rules', { ...freezer, name: `bad ${Math.random()}`, ...body });
        assert.equal(response.status, 400, response.text);
        const named = (response.body.errors as { field: string }[]).map((e) => e.field);
        for (const field of fields)
          assert.ok(
            named.some((n) => n.includes(field)),
            `${field} not named in ${response.text}`,
          );
      };
      await refused({ name: '' }, ['name']);
      await refused({ name: 'x'.repeat(101) }, ['name']);
      await refused({ name: 'battery low' }, ['name']);
      await refused({ field: 'env..temp' }, ['field']);
      await refused({ op: 'above' }, ['op']);
      await refused({ tsm_id: -1 }, ['tsm_id']);
      await refused({ for_s: -5 }, ['for_s']);
      await refused({ severity: 'urgent' }, ['severity']);
      await refused({ clear_threshold: 9 }, ['clear_threshold']);
      await refused({ op: 'eq', clear_threshold: 6 }, ['clear_threshold']);
      assert.equal((await rest.get('/alert-rules')).body.data.length, before);
    });

    test('REST: a name is unique in its organization (409), not across organizations, whose rules stay apart', async () => {
      const first = await rest.post('/alert-rules', { ...freezer, name: 'unique name' });
      assert.equal(first.status, 200, first.text);
      const again = await rest.post('/alert-rules', { ...freezer, name: 'unique name' });
      assert.equal(again.status, 409, again.text);
      const second = await rest.post('/alert-rules', { ...freezer, name: 'second name' });
      const rename = await rest.request('PATCH', `/alert-rules/${second.body.data.id}`, { body: { name: 'unique name' } });
      assert.equal(rename.status, 409, rename.text);

      const theirs = await otherRest.post('/alert-rules', { ...freezer, name: 'unique name' });
      assert.equal(theirs.status, 200, theirs.text);
      assert.equal((await otherRest.get(`/alert-rules/${first.body.data.id}`)).status, 404);
      assert.equal((await otherRest.request('PATCH', `/alert-rules/${first.body.data.id}`, { body: { enabled: false } })).status, 404);
      assert.equal((await otherRest.delete(`/alert-rules/${first.body.data.id}`)).status, 404);
      assert.deepEqual(
        (await otherRest.get('/alert-rules')).body.data.map((r: { id: string }) => r.id),
        [theirs.body.data.id],
      );
      assert.equal((await rest.get(`/alert-rules/${theirs.body.data.id}`)).status, 404);
    });

    test('GraphQL: every role reads the rules; Managers write them; Viewers cannot', async () => {
      const create = `mutation($i: AlertRuleInput!) { createAlertRule(input: $i) { ${ruleFields} } }`;
      const input = { name: 'gql rule', tsmId: 1100, field: 'temp', op: 'lt', threshold: -20, clearThreshold: -18, severity: 'warning' };
      const made = dataOf(await manager.client.request(create, { i: input })).createAlertRule;
      assert.deepEqual(made.scope, { groupIds: null, tuids: null });
      assert.equal(made.forS, 0);

      const listed = dataOf(await viewer.client.request(`{ alertRules { ${ruleFields} } }`)).alertRules;
      assert.deepEqual(
        listed.find((r: { id: string }) => r.id === made.id),
        made,
      );
      const viewerCreate =
        'mutation { createAlertRule(input: { name: "v", tsmId: 1, field: "t", op: "gt", threshold: 1, severity: "info" }) { id } }';
      assertGraphqlError(await viewer.client.request(viewerCreate), 'BAD_USER_INPUT', /Cannot query field "createAlertRule"/);

      assertBadInput(await manager.client.request(create, { i: { ...input, name: 'bad gql', op: 'near', forS: -1 } }), ['op', 'forS']);
      const update = `mutation($id: ID!, $i: AlertRuleInput!) { updateAlertRule(id: $id, input: $i) { ${ruleFields} } }`;
      const updated = dataOf(
        await manager.client.request(update, { id: made.id, i: { severity: 'critical', scope: { groupIds: ['g'] } } }),
      );
      assert.equal(updated.updateAlertRule.severity, 'critical');
      assert.deepEqual(updated.updateAlertRule.scope, { groupIds: ['g'], tuids: null });
      assert.equal(dataOf(await manager.client.request(`mutation { deleteAlertRule(id: "${made.id}") }`)).deleteAlertRule, true);
      assertGraphqlError(await manager.client.request(`mutation { deleteAlertRule(id: "${made.id}") }`), 'NOT_FOUND');
    });
  });
}
