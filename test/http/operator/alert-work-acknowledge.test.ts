/**
 * SPEC section 16: alerts as work items, acknowledged (one period, an incident; REST and GraphQL), and an incident
 * closing when its gateway is heard again, on both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { acknowledgeAlerts } from '../../../src/domain/alerts/alert-work.js';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { assertGraphqlError, dataOf, type SignedInUser } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import type { TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { hear, minute } from '../../domain/alerts/alert-test-helpers.js';
import { listAlerts, start, startAlertWork, type Period } from './alert-work-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`alerts as work items, acknowledged, on ${target.name}`, { skip: target.skip }, () => {
    const clock = new ManualClock(start);
    let server: TestApp;
    let viewer: SignedInUser;
    let installer: SignedInUser;
    let manager: SignedInUser;
    // A fresh client per call: tokens expire after 15 minutes of the manual clock.
    const rest = () => new RestClient(server);
    const list = (query: string) => listAlerts(server, query);

    before(async () => {
      ({ server, viewer, installer, manager } = await startAlertWork(target, clock));
    });
    after(() => server?.stop());

    test('acknowledging one period: noted, by the caller, still open; the first acknowledgement stands; bad requests', async () => {
      const battery = (await list('?alert_type=battery%20low'))[0]!;
      const first = await rest().post(`/alerts/${battery.id}/acknowledge`, { note: 'replacing the battery' });
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(first.body.data.acknowledged, {
        by: 'acme-client',
        at: Math.floor(clock.now() / 1000),
        note: 'replacing the battery',
      });
      assert.equal(first.body.data.to, null, 'it stays open until its condition clears');
      const again = await rest().post(`/alerts/${battery.id}/acknowledge`, {});
      assert.equal(again.body.data.acknowledged.note, 'replacing the battery');
      assert.deepEqual(
        (await list('?acknowledged=true')).map((p) => p.id),
        [battery.id],
      );
      assert.equal((await list('?acknowledged=false')).length, 4);
      assert.equal((await rest().post('/alerts/999999/acknowledge', {})).status, 404);
      const long = await rest().post(`/alerts/${battery.id}/acknowledge`, { note: 'x'.repeat(1025) });
      assert.equal(long.status, 400);
      assert.equal(long.body.errors[0].field, 'note');
      assert.equal((await rest().post('/alerts/abc/acknowledge', {})).status, 400);
      assert.equal((await rest().post(`/alerts/${battery.id}/acknowledge`, { noted: 'x' })).status, 400);
    });

    test('acknowledging an incident marks all its periods; ids all or none; exactly one of incident_id and ids', async () => {
      const periods = await list('?gateway_tuid=GW-A');
      const incident = periods[0]!.incident_id!;
      assert.equal((await rest().post('/alerts/acknowledge', {})).status, 400);
      assert.equal((await rest().post('/alerts/acknowledge', { incident_id: incident, ids: [periods[0]!.id] })).status, 400);
      assert.equal((await rest().post('/alerts/acknowledge', { incident_id: 'gateway:nope:1' })).status, 404);
      const b1 = (await list('?gateway_tuid=GW-B&alert_type=gateway%20connection%20lost'))[0]!;
      const partly = await rest().post('/alerts/acknowledge', { ids: [b1.id, 999999] });
      assert.equal(partly.status, 404);
      assert.equal((await list(`?tuid=B-1&alert_type=gateway%20connection%20lost`))[0]!.acknowledged, null, 'nothing changed');
      const done = await rest().post('/alerts/acknowledge', { incident_id: incident, note: 'power cut' });
      assert.equal(done.status, 200, done.text);
      assert.equal(done.body.data.alerts.length, 3);
      assert.ok(done.body.data.alerts.every((p: Period) => p.acknowledged?.note === 'power cut' && p.to === null));
    });

    test('GraphQL: a Viewer reads but may not acknowledge; Installers and Managers may', async () => {
      const b1 = (await list('?gateway_tuid=GW-B&alert_type=gateway%20connection%20lost'))[0]!;
      assertGraphqlError(
        await viewer.client.request('mutation ($id: ID!) { acknowledgeAlert(id: $id) { id } }', { id: String(b1.id) }),
        'BAD_USER_INPUT',
        /^Cannot query field "acknowledgeAlert" on type "Mutation"/,
      );
      const viewerPrincipal = {
        kind: 'user',
        organizationId: 'acme',
        userId: viewer.userId,
        email: viewer.email,
        role: 'Viewer',
        sessionId: 's',
        responsible: viewer.email,
      } as const;
      await assert.rejects(acknowledgeAlerts({ store: server.app.store, clock }, viewerPrincipal, { ids: [b1.id] }), { code: 'FORBIDDEN' });
      assert.equal((await list(`?tuid=B-1&alert_type=gateway%20connection%20lost`))[0]!.acknowledged, null);
      const byInstaller = dataOf(
        await installer.client.request(
          'mutation ($id: ID!) { acknowledgeAlert(id: $id, note: "on my way") { id acknowledged { by note } toTs } }',
          { id: String(b1.id) },
        ),
      );
      assert.deepEqual(byInstaller.acknowledgeAlert, {
        id: String(b1.id),
        acknowledged: { by: installer.email, note: 'on my way' },
        toTs: null,
      });
      const battery = (await list('?alert_type=battery%20low'))[0]!;
      const byManager = dataOf(
        await manager.client.request('mutation ($ids: [ID!]) { acknowledgeAlerts(ids: $ids) { id acknowledged { by } } }', {
          ids: [String(battery.id)],
        }),
      );
      assert.equal(byManager.acknowledgeAlerts[0].acknowledged.by, 'acme-client', 'the first acknowledgement stands');
      assertGraphqlError(await manager.client.request('mutation { acknowledgeAlerts { id } }'), 'BAD_USER_INPUT');
      assertGraphqlError(await manager.client.request('mutation { acknowledgeAlert(id: "x") { id } }'), 'BAD_USER_INPUT');
      assertGraphqlError(await manager.client.request('mutation { acknowledgeAlert(id: "999999") { id } }'), 'NOT_FOUND');
      assertGraphqlError(await viewer.client.request('{ alertPeriods(state: "soon") { nodes { id } } }'), 'BAD_USER_INPUT');
    });

    test("the gateway heard again closes its incident's periods; its next silence is another incident", async () => {
      const before = (await list('?gateway_tuid=GW-A'))[0]!.incident_id;
      await hear(server, 'GW-A', ['A-1']);
      const closed = await list('?state=closed&gateway_tuid=GW-A');
      assert.equal(closed.length, 3);
      assert.ok(closed.every((p) => p.incident_id === before && p.to_ts !== null));
      clock.advance(11 * minute);
      await server.app.alertEngine.evaluateSilence();
      const reopened = await list('?state=open&gateway_tuid=GW-A');
      assert.equal(reopened.length, 3);
      assert.equal(new Set(reopened.map((p) => p.incident_id)).size, 1);
      assert.notEqual(reopened[0]!.incident_id, before);
    });
  });
}
