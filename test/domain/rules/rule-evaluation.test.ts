/** SPEC section 13: rule alerts opened and closed on ingest, on both stores: threshold, hysteresis, scope, paths, disabling. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { dataOf, signInAs } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { manualEngineEnv, subscribeAlerts } from '../alerts/alert-test-helpers.js';
import { createRule, openFlags, periodsOf, send } from './rule-test-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`rule alerts on ingest on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    before(async () => {
      server = await startTestApp({ ...manualEngineEnv, DATABASE_URL: await target.createUrl() });
      rest = new RestClient(server);
    });
    after(() => server?.stop());

    test('a period opens above the threshold with the rule id, severity and value, and closes at it', async () => {
      const rule = await createRule(rest, { name: 'temp > 30' });
      const feed = await subscribeAlerts(server);
      await send(server, [{ tuid: 'R-1', temp: 30 }]);
      assert.deepEqual(await openFlags(rest, 'R-1', rule), [], 'at the threshold: gt does not hold');
      await send(server, [{ tuid: 'R-1', temp: 31.5 }]);
      const [opened] = await periodsOf(rest, 'R-1', rule);
      assert.deepEqual(
        { type: opened?.alert_type, severity: opened?.severity, value: opened?.value, to: opened?.to },
        { type: 'temp > 30', severity: 'critical', value: 31.5, to: null },
      );
      await send(server, [{ tuid: 'R-1', temp: 35 }]);
      assert.deepEqual(await openFlags(rest, 'R-1', rule), [true], 'still open: one period, not a new one');
      await send(server, [{ tuid: 'R-1', temp: 30 }]);
      assert.deepEqual(await openFlags(rest, 'R-1', rule), [false]);
      // Fed like a built-in alert, with the rule's facts.
      await feed.waitFor(2);
      assert.deepEqual(
        feed.payloads().map((p) => [p.alert_type, p.state, p.rule_id, p.severity, p.value]),
        [
          ['temp > 30', 'opened', rule, 'critical', 31.5],
          ['temp > 30', 'closed', rule, 'critical', 31.5],
        ],
      );
      await feed.client.endAsync();
      // Listed like a built-in alert: the thing's alert records, under the rule's name; GraphQL says RULE.
      const records = (await rest.get('/things/R-1/alerts?from=0&to=4102444800')).body.data as { alert_type: string }[];
      assert.ok(records.some((r) => r.alert_type === 'temp > 30'));
      const viewer = await signInAs(server, 'Viewer');
      const gql = dataOf(await viewer.client.request('{ alerts(tuid: "R-1", from: 0, to: 2000000000) { alertType type } }'));
      assert.deepEqual(gql.alerts, [{ alertType: 'temp > 30', type: 'RULE' }]);
    });

    test('hysteresis: the period closes only once the value is back past the clear threshold', async () => {
      const rule = await createRule(rest, { name: 'hysteresis', op: 'gte', threshold: 30, clear_threshold: 28 });
      await send(server, [{ tuid: 'R-2', temp: 30 }]);
      await send(server, [{ tuid: 'R-2', temp: 29 }]);
      assert.deepEqual(await openFlags(rest, 'R-2', rule), [true], 'between the thresholds: stays open');
      await send(server, [{ tuid: 'R-2', temp: 28 }]);
      assert.deepEqual(await openFlags(rest, 'R-2', rule), [true], 'at the clear threshold: gte still holds against it');
      await send(server, [{ tuid: 'R-2', temp: 27.9 }]);
      assert.deepEqual(await openFlags(rest, 'R-2', rule), [false]);
      // Several readings of one thing in one batch are taken in arrival order.
      await send(server, [
        { tuid: 'R-2', temp: 40 },
        { tuid: 'R-2', temp: 10 },
        { tuid: 'R-2', temp: 41 },
      ]);
      assert.deepEqual(await openFlags(rest, 'R-2', rule), [false, false, true]);
    });

    test('scope: by group and by TUID; a thing outside it opens nothing', async () => {
      assert.equal((await rest.post('/groups', { group_id: 'freezers' })).status, 200);
      await send(server, [
        { tuid: 'S-IN', temp: 1 },
        { tuid: 'S-OUT', temp: 1 },
        { tuid: 'S-TUID', temp: 1 },
      ]);
      assert.equal((await rest.post('/things/S-IN/group', { group_id: 'freezers' })).status, 200);
      const byGroup = await createRule(rest, { name: 'group scope', scope: { group_ids: ['freezers'] } });
      const byTuid = await createRule(rest, { name: 'tuid scope', scope: { tuids: ['S-TUID'] } });
      await send(server, [
        { tuid: 'S-IN', temp: 50 },
        { tuid: 'S-OUT', temp: 50 },
        { tuid: 'S-TUID', temp: 50 },
      ]);
      assert.deepEqual(await openFlags(rest, 'S-IN', byGroup), [true]);
      assert.deepEqual(await openFlags(rest, 'S-OUT', byGroup), []);
      assert.deepEqual(await openFlags(rest, 'S-TUID', byGroup), []);
      assert.deepEqual(await openFlags(rest, 'S-TUID', byTuid), [true]);
      assert.deepEqual(await openFlags(rest, 'S-IN', byTuid), []);
    });

    test('nested paths; missing, null and non-numeric values change nothing; other message ids are not read', async () => {
      const rule = await createRule(rest, { name: 'nested', field: 'env.probe.temp', op: 'lt', threshold: -18 });
      await send(server, [{ tuid: 'N-1', env: { probe: { temp: -20 } } }]);
      assert.deepEqual(await openFlags(rest, 'N-1', rule), [true]);
      await send(server, [
        { tuid: 'N-1', env: { probe: { temp: '5' } } },
        { tuid: 'N-1', env: { probe: { temp: null } } },
        { tuid: 'N-1', env: { probe: {} } },
        { tuid: 'N-1', env: 5 },
        { tuid: 'N-1', temp: 5 },
      ]);
      await send(server, [{ tuid: 'N-1', env: { probe: { temp: 5 } } }], 4243);
      assert.deepEqual(await openFlags(rest, 'N-1', rule), [true], 'nothing readable closed it');
      await send(server, [{ tuid: 'N-1', env: { probe: { temp: 5 } } }]);
      assert.deepEqual(await openFlags(rest, 'N-1', rule), [false]);
    });

    test('disabling and deleting a rule close its open periods, which stay in the history; a disabled rule opens nothing', async () => {
      const disabled = await createRule(rest, { name: 'to disable' });
      const deleted = await createRule(rest, { name: 'to delete' });
      await send(server, [{ tuid: 'D-1', temp: 99 }]);
      assert.deepEqual(await openFlags(rest, 'D-1', disabled), [true]);
      assert.deepEqual(await openFlags(rest, 'D-1', deleted), [true]);
      assert.equal((await rest.request('PATCH', `/alert-rules/${disabled}`, { body: { enabled: false } })).status, 200);
      assert.equal((await rest.delete(`/alert-rules/${deleted}`)).status, 200);
      assert.deepEqual(await openFlags(rest, 'D-1', disabled), [false]);
      assert.deepEqual(await openFlags(rest, 'D-1', deleted), [false]);
      await send(server, [{ tuid: 'D-1', temp: 10 }]);
      await send(server, [{ tuid: 'D-1', temp: 99 }]);
      assert.deepEqual(await openFlags(rest, 'D-1', disabled), [false], 'disabled: evaluates nothing');
      assert.equal((await rest.request('PATCH', `/alert-rules/${disabled}`, { body: { enabled: true, name: 'renamed' } })).status, 200);
      await send(server, [{ tuid: 'D-1', temp: 98 }]);
      const periods = await periodsOf(rest, 'D-1', disabled);
      assert.deepEqual(
        periods.map((p) => [p.alert_type, p.to === null]),
        [
          ['renamed', false],
          ['renamed', true],
        ],
        'renaming keeps the history under the rule',
      );
    });
  });
}
