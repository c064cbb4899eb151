/**
 * Webhooks (SPEC section 11) end to end: real server, real loopback receivers, signatures checked by
 * `standardwebhooks`. Signing and rotation, filters, batching, the events, the test event and the log; failing
 * endpoints and retries are in webhook-retries.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { RestClient } from '../../helpers/rest-client.js';
import type { TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';
import { deliveryTools, publishReadings, Receiver, startWebhookApp, until, verify } from './webhook-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`webhook delivery on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    const receivers: Receiver[] = [];
    const { receiver, create, log } = deliveryTools(() => rest, receivers);

    before(async () => {
      ({ server, rest } = await startWebhookApp(target.name === 'postgres' ? { DATABASE_URL: await target.createUrl() } : {}));
    });
    after(async () => {
      await server?.stop();
      for (const r of receivers) await r.stop();
    });

    test('message.stored is signed per Standard Webhooks: verified, and refused for a tampered body, an old timestamp, a wrong secret', async () => {
      const r = await receiver();
      const hook = await create({ url: r.url, events: ['message.stored'], tuids: ['SIG-1'] });
      assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{40,}={0,2}$/);
      assert.equal(hook.health.state, 'healthy');
      await publishReadings(server, 'SIG-1', 1);
      const [got] = await r.waitFor(1);
      const event = verify(hook.secret, got!) as { id: string; type: string; timestamp: string; data: Record<string, unknown> };
      assert.equal(event.type, 'message.stored');
      assert.match(event.id, /^evt_/);
      assert.match(event.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      assert.equal(event.data.tsmTuid, 'SIG-1');
      assert.equal(event.data.deploymentGroupId, 'unassigned');
      assert.equal(event.data.seq, 1);
      assert.equal(got!.headers['content-type'], 'application/json');
      assert.match(String(got!.headers['webhook-id']), /^whd_/);
      assert.throws(() => verify(hook.secret, { ...got!, body: got!.body.replace('SIG-1', 'SIG-2') }));
      const old = String(Math.floor(Date.now() / 1000) - 3600);
      assert.throws(() => verify(hook.secret, { ...got!, headers: { ...got!.headers, 'webhook-timestamp': old } }));
      assert.throws(() => verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, got!));
      // The secret is shown at creation only.
      const listed = await rest.get('/webhooks');
      assert.ok(!listed.text.includes(hook.secret.slice(6)));
    });

    test('rotation: two signatures during the overlap, each secret verifies', async () => {
      const r = await receiver();
      const hook = await create({ url: r.url, events: ['message.stored'], tuids: ['ROT-1'] });
      const rotated = await rest.post(`/webhooks/${hook.id}/rotate-secret`, {});
      assert.equal(rotated.status, 200, rotated.text);
      const secret = rotated.body.data.secret as string;
      assert.notEqual(secret, hook.secret);
      await publishReadings(server, 'ROT-1', 1);
      const [got] = await r.waitFor(1);
      assert.equal(String(got!.headers['webhook-signature']).split(' ').length, 2);
      verify(secret, got!);
      verify(hook.secret, got!);
    });

    test('filters: tuids, group_ids and tsm_ids narrow (AND across kinds, OR within a list)', async () => {
      const r = await receiver();
      await rest.post('/groups', { group_id: 'north' });
      await create({ url: r.url, events: ['message.stored'], tuids: ['F-1', 'F-2', 'F-3'], tsm_ids: [12100] });
      const grouped = await receiver();
      await create({ url: grouped.url, events: ['message.stored'], group_ids: ['north'] });
      await publishReadings(server, 'F-3', 1); // claims F-3 (unassigned)
      await rest.post('/things/F-3/group', { group_id: 'north' });
      await publishReadings(server, 'F-1', 1);
      await publishReadings(server, 'F-9', 1);
      await publishReadings(server, 'F-2', 1, 1112);
      await publishReadings(server, 'F-3', 1);
      await r.waitFor(3);
      await grouped.waitFor(1);
      await publishReadings(server, 'F-1', 1);
      await r.waitFor(4);
      assert.deepEqual(
        r.events().map((e) => e.data.tsmTuid),
        ['F-3', 'F-1', 'F-3', 'F-1'],
      );
      assert.deepEqual(
        grouped.events().map((e) => [e.data.tsmTuid, e.data.deploymentGroupId]),
        [['F-3', 'north']],
      );
    });

    test('batching: batch_max_events > 1 sends {type: batch, data: [...]} with up to that many events', async () => {
      const r = await receiver();
      const hook = await create({ url: r.url, events: ['message.stored'], tuids: ['BT-1'], batch_max_events: 5, batch_max_wait_ms: 200 });
      await publishReadings(server, 'BT-1', 7);
      await until(() => r.events().length >= 7 || undefined);
      const bodies = r.received.map((g) => verify(hook.secret, g) as { type: string; data: unknown[] });
      assert.ok(bodies.every((b) => b.type === 'batch' && b.data.length <= 5));
      assert.equal(bodies[0]!.data.length, 5);
      assert.deepEqual(
        r.events().map((e) => e.data.seq),
        [1, 2, 3, 4, 5, 6, 7],
      );
    });

    test('thing.changed (installation status, group, name and labels, an import) and alert.opened are delivered from their own transactions', async () => {
      const r = await receiver();
      const hook = await create({ url: r.url, events: ['thing.changed', 'alert.opened'], tuids: ['EV-1'] });
      await rest.post('/groups', { group_id: 'south' });
      await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_700_000_000, tsmTuid: 'EV-1', tsmGw: 'GW-1', batl: 5 }]);
      assert.equal((await rest.post('/things/EV-1/installations', { installation_status: 'installed' })).status, 200);
      assert.equal((await rest.post('/things/EV-1/group', { group_id: 'south' })).status, 200);
      const named = await rest.request('PATCH', '/things/EV-1', { body: { name: 'Freezer 1', labels: { site: 'north' } } });
      assert.equal(named.status, 200, named.text);
      const imported = await rest.request('POST', '/things/import', {
        rawBody: 'tuid,name\nEV-1,Freezer 2\n',
        headers: { 'content-type': 'text/csv' },
      });
      assert.equal(imported.status, 200, imported.text);
      await r.waitFor(5);
      const events = r.received.map((g) => verify(hook.secret, g) as { type: string; data: Record<string, unknown> });
      const byType = (type: string) => events.filter((e) => e.type === type).map((e) => e.data);
      assert.deepEqual(
        byType('alert.opened').map((d) => [d.tuid, d.alert_type, d.to]),
        [['EV-1', 'battery low', null]],
      );
      assert.deepEqual(
        byType('thing.changed').map((d) => d.changes),
        [
          { installation_status: { from: 'new', to: 'installed' } },
          { group_id: { from: 'unassigned', to: 'south' } },
          { name: { from: null, to: 'Freezer 1' }, labels: { from: {}, to: { site: 'north' } } },
          { name: { from: 'Freezer 1', to: 'Freezer 2' } },
        ],
      );
    });

    test('the test event answers its attempt and is in the delivery log', async () => {
      const r = await receiver();
      r.respond = (_req, res) => res.writeHead(202).end('x'.repeat(10_000));
      const hook = await create({ url: r.url, events: ['alert.opened'] });
      const tested = await rest.post(`/webhooks/${hook.id}/test`, {});
      assert.equal(tested.status, 200, tested.text);
      assert.equal(tested.body.data.status_code, 202);
      assert.equal(tested.body.data.error, null);
      const event = verify(hook.secret, r.received[0]!) as { type: string };
      assert.equal(event.type, 'webhook.test');
      const [entry] = await log(hook.id);
      assert.equal(entry!.status, 'succeeded');
      assert.equal((entry!.attempts[0] as unknown as { response_excerpt: string }).response_excerpt.length, 4096);
      // Past WEBHOOK_LOG_RETENTION_DAYS the retention sweep removes settled deliveries and attempts (here: all before now + 1 s).
      assert.ok((await server.app.store.webhooks.expireLog(Date.now() + 1000, 10_000)) >= 2);
      assert.deepEqual(await log(hook.id), []);
    });
  });
}
