/** SPEC section 13: a rule's open period in fleetHealth (the studio overview's source) with its rule, severity and value, on both stores. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { dataOf, signInAs, type SignedInUser } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { createRule, send } from '../../domain/rules/rule-test-helpers.js';

after(cleanupStores);

const alertingQuery = '{ fleetHealth { alerting { alerts { tuid alertType type severity ruleId value } } } }';

for (const target of storeTargets) {
  describe(`rule alerts in fleetHealth on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let viewer: SignedInUser;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      viewer = await signInAs(server, 'Viewer');
    });
    after(() => server?.stop());

    test('an open rule period shows its rule, severity and the value that opened it, and leaves once it closes', async () => {
      const ruleId = await createRule(new RestClient(server), { name: 'too hot', severity: 'critical' });
      await send(server, [{ tuid: 'FH-1', temp: 31.25 }]);
      const alerts = dataOf(await viewer.client.request(alertingQuery)).fleetHealth.alerting.alerts as Record<string, unknown>[];
      assert.deepEqual(
        alerts.find((alert) => alert.tuid === 'FH-1'),
        { tuid: 'FH-1', alertType: 'too hot', type: 'RULE', severity: 'critical', ruleId, value: 31.25 },
      );
      await send(server, [{ tuid: 'FH-1', temp: 20 }]);
      const after = dataOf(await viewer.client.request(alertingQuery)).fleetHealth.alerting.alerts as Record<string, unknown>[];
      assert.equal(
        after.find((alert) => alert.tuid === 'FH-1'),
        undefined,
        'closed: no longer alerting',
      );
    });
  });
}
