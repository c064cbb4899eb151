/**
 * SPEC section 13, the rule form's preview (GraphQL `alertRulePreview`) on both stores: how many things a scope
 * covers and a field's last values, read as rules read them; every role may ask, each organization sees its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMqttCredential, createOrganization } from '../../../src/domain/identity/identity-service.js';
import { previewSampleLimit } from '../../../src/domain/rules/rule-preview-bounds.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { assertBadInput, dataOf, signInAs, type SignedInUser } from '../../helpers/graphql-users.js';
import { connectMqtt } from '../../helpers/mqtt-clients.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);

const tsmId = 4243;
const preview = `query Preview($tsmId: Int!, $field: String!, $scope: AlertRuleScopeInput) {
  alertRulePreview(tsmId: $tsmId, field: $field, scope: $scope) { thingCount samples { tuid value at } }
}`;

interface Preview {
  thingCount: number;
  samples: { tuid: string; value: number | null; at: number | null }[];
}

for (const target of storeTargets) {
  describe(`alert rule preview on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let viewer: SignedInUser;
    let otherViewer: SignedInUser;
    const ask = async (user: SignedInUser, variables: Record<string, unknown>): Promise<Preview> =>
      dataOf(await user.client.request(preview, { tsmId, field: 'env.temp', ...variables })).alertRulePreview;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Other', id: 'other' });
      await createMqttCredential(deps, { organizationId: 'other', kind: 'gateway', username: 'other-gw', password: 'other-gw-password' });
      const rest = new RestClient(server);
      assert.equal((await rest.post('/groups', { group_id: 'freezers' })).status, 200);
      const t0 = 1_790_000_000;
      await publishUplinks(server, [
        { tsmId, tsmEv: 10, tsmTs: t0, tsmTuid: 'PV-1', env: { temp: 20 } },
        { tsmId, tsmEv: 10, tsmTs: t0 + 1, tsmTuid: 'PV-1', env: { temp: 31.5 } },
        { tsmId, tsmEv: 10, tsmTs: t0 + 1, tsmTuid: 'PV-2', env: { temp: 'warm' } },
        { tsmId: 1112, tsmEv: 10, tsmTs: t0 + 1, tsmTuid: 'PV-3', uptime: 5 },
        // A newer message of another id does not hide the last one of the rule's id.
        { tsmId, tsmEv: 10, tsmTs: t0 + 1, tsmTuid: 'PV-4', env: { temp: 4 } },
        { tsmId: 1112, tsmEv: 10, tsmTs: t0 + 2, tsmTuid: 'PV-4', uptime: 6 },
        ...Array.from({ length: 8 }, (_, i) => ({ tsmId: 1112, tsmEv: 10, tsmTs: t0, tsmTuid: `PV-X${i}`, uptime: 1 })),
      ]);
      assert.equal((await rest.post('/things/PV-1/group', { group_id: 'freezers' })).status, 200);
      // The other organization's thing, with a value the acme previews must never show.
      const other = await connectMqtt(server.mqttUrl, { username: 'other-gw', password: 'other-gw-password' });
      await other.publishAsync(
        'thingdesk/other/up/GW-O',
        JSON.stringify([{ tsmId, tsmEv: 10, tsmTs: t0, tsmTuid: 'OTHER-1', env: { temp: 99 } }]),
        {
          qos: 1,
        },
      );
      await other.endAsync();
      viewer = await signInAs(server, 'Viewer');
      otherViewer = await signInAs(server, 'Viewer', { organizationId: 'other', organizationName: 'Other' });
    });
    after(() => server?.stop());

    test('every thing: the count is the whole scope, the samples at most the limit, each read as a rule reads it', async () => {
      const all = await ask(viewer, {});
      assert.equal(all.thingCount, 12, 'the 12 things of acme, not the other organization’s');
      assert.equal(all.samples.length, previewSampleLimit);
      assert.ok(!all.samples.some((s) => s.tuid === 'OTHER-1'));
      const byTuid = new Map(all.samples.map((s) => [s.tuid, s]));
      assert.equal(byTuid.get('PV-1')?.value, 31.5, 'the newest message of the id');
      assert.equal(typeof byTuid.get('PV-1')?.at, 'number');
      assert.deepEqual(byTuid.get('PV-2') && { value: byTuid.get('PV-2')!.value }, { value: null }, 'a string is no value');
      assert.deepEqual(byTuid.get('PV-3'), { tuid: 'PV-3', value: null, at: null }, 'no message of the id');
      assert.equal(byTuid.get('PV-4')?.value, 4);
    });

    test('a scope narrows by group (unassigned: in none) and by TUID; another organization’s TUID counts nothing', async () => {
      const freezers = await ask(viewer, { scope: { groupIds: ['freezers'] } });
      assert.deepEqual(
        freezers.samples.map((s) => [s.tuid, s.value]),
        [['PV-1', 31.5]],
      );
      assert.equal(freezers.thingCount, 1);
      assert.equal((await ask(viewer, { scope: { groupIds: ['unassigned'] } })).thingCount, 11);
      assert.equal((await ask(viewer, { scope: { groupIds: ['freezers', 'unassigned'] } })).thingCount, 12);
      const byTuid = await ask(viewer, { scope: { tuids: ['PV-4', 'OTHER-1'] } });
      assert.deepEqual(byTuid, { thingCount: 1, samples: [{ tuid: 'PV-4', value: 4, at: byTuid.samples[0]!.at }] });
      assert.equal((await ask(viewer, { scope: { tuids: ['PV-1'], groupIds: ['unassigned'] } })).thingCount, 0, 'both lists narrow');
    });

    test('the other organization sees its own thing only', async () => {
      const other = await ask(otherViewer, {});
      assert.equal(other.thingCount, 1);
      assert.deepEqual(
        other.samples.map((s) => [s.tuid, s.value]),
        [['OTHER-1', 99]],
      );
      assert.equal((await ask(otherViewer, { scope: { tuids: ['PV-1'] } })).thingCount, 0);
    });

    test('bad input names its field', async () => {
      assertBadInput(await viewer.client.request(preview, { tsmId, field: 'env..temp' }), ['field']);
      assertBadInput(await viewer.client.request(preview, { tsmId: -1, field: 'temp' }), ['tsmId']);
      assertBadInput(await viewer.client.request(preview, { tsmId, field: 'temp', scope: { tuids: [''] } }), ['scope.tuids']);
    });
  });
}
