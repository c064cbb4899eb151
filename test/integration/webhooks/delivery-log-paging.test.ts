/**
 * The delivery log's paging (SPEC section 11), shared by webhook endpoints and notification channels: a limit out of
 * range, an unknown status and a cursor this API never gave are refused on their field; pages of one follow each
 * other to the end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { RestClient } from '../../helpers/rest-client.js';
import type { TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { publishReadings, Receiver, startWebhookApp, until } from './webhook-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`delivery log paging on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    const receiver = new Receiver();

    before(async () => {
      await receiver.start();
      ({ server, rest } = await startWebhookApp(target.name === 'postgres' ? { DATABASE_URL: await target.createUrl() } : {}));
    });
    after(async () => {
      await server?.stop();
      await receiver.stop();
    });

    test('bad limit, status or cursor is refused on its field; pages of one reach every delivery once', async () => {
      const hook = (await rest.post('/webhooks', { url: receiver.url, events: ['message.stored'], tuids: ['PG-1'] })).body.data as {
        id: string;
      };
      await publishReadings(server, 'PG-1', 1);
      await publishReadings(server, 'PG-1', 1);
      await receiver.waitFor(2);
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=201', 'limit'],
        ['status=lost', 'status'],
        ['cursor=bm90LWEtY3Vyc29y', 'cursor'],
      ] as const) {
        const refused = await rest.get(`/webhooks/${hook.id}/deliveries?${query}`);
        assert.equal(refused.status, 400, `${query}: ${refused.text}`);
        assert.equal(refused.body.errors[0].field, field, query);
      }
      // The receiver has both before their 200s are recorded: wait until the log shows both succeeded.
      await until(async () => (await rest.get(`/webhooks/${hook.id}/deliveries?status=succeeded`)).body.data.length === 2 || undefined);
      const first = (await rest.get(`/webhooks/${hook.id}/deliveries?limit=1&status=succeeded`)).body;
      assert.equal(first.data.length, 1);
      const second = (await rest.get(`/webhooks/${hook.id}/deliveries?limit=1&status=succeeded&cursor=${first.next_cursor}`)).body;
      assert.equal(second.data.length, 1);
      assert.notEqual(second.data[0].id, first.data[0].id);
      const third = (await rest.get(`/webhooks/${hook.id}/deliveries?limit=1&status=succeeded&cursor=${second.next_cursor}`)).body;
      assert.deepEqual(third.data, []);
      assert.equal(third.next_cursor, null);

      const channel = (await rest.post('/notification-channels', { name: 'paging', type: 'email', to: ['a@example.test'] })).body.data as {
        id: string;
      };
      const limitRefused = await rest.get(`/notification-channels/${channel.id}/deliveries?limit=0`);
      assert.equal(limitRefused.status, 400, limitRefused.text);
      assert.equal(limitRefused.body.errors[0].field, 'limit');
      const empty = await rest.get(`/notification-channels/${channel.id}/deliveries?limit=5`);
      assert.equal(empty.status, 200, empty.text);
      assert.deepEqual(empty.body, { data: [], next_cursor: null });
    });
  });
}
