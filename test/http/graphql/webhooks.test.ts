/** Webhooks over GraphQL (SPEC section 11): Managers only; Viewers and Installers have no webhook field at all. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../../helpers/databases.js';
import { assertGraphqlError, signInAs, type SignedInUser } from '../../helpers/graphql-users.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { Receiver, verify } from '../../integration/webhooks/webhook-helpers.js';

after(cleanupStores);

const create = `mutation ($input: WebhookInput!) { createWebhook(input: $input) { secret webhook { id url events enabled health { state } } } }`;

describe('webhooks over GraphQL', () => {
  let server: TestApp;
  let manager: SignedInUser;
  let receiver: Receiver;

  before(async () => {
    receiver = await new Receiver().start();
    server = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' });
    manager = await signInAs(server, 'Manager');
  });
  after(async () => {
    await server?.stop();
    await receiver?.stop();
  });

  test('a Manager creates, lists, tests, rotates, reads the log, replays, updates and deletes', async () => {
    const created = await manager.client.request(create, { input: { url: receiver.url, events: ['alert.opened'] } });
    assert.equal(created.body.errors, undefined, JSON.stringify(created.body));
    const { secret, webhook } = (
      created.body.data as { createWebhook: { secret: string; webhook: { id: string; health: { state: string } } } }
    ).createWebhook;
    assert.equal(webhook.health.state, 'healthy');
    const listed = await manager.client.request('{ webhooks { id url } }');
    assert.deepEqual(
      (listed.body.data as { webhooks: { id: string }[] }).webhooks.map((w) => w.id),
      [webhook.id],
    );
    const tested = await manager.client.request('mutation ($id: ID!) { testWebhook(id: $id) { statusCode error } }', { id: webhook.id });
    assert.deepEqual((tested.body.data as { testWebhook: unknown }).testWebhook, { statusCode: 200, error: null });
    verify(secret, receiver.received[0]!);
    const rotated = await manager.client.request('mutation ($id: ID!) { rotateWebhookSecret(id: $id) { secret } }', { id: webhook.id });
    assert.match((rotated.body.data as { rotateWebhookSecret: { secret: string } }).rotateWebhookSecret.secret, /^whsec_/);
    const log = await manager.client.request(
      'query ($id: ID!) { webhookDeliveries(webhookId: $id) { deliveries { id status eventTypes attempts { statusCode } } nextCursor } }',
      { id: webhook.id },
    );
    const page = (log.body.data as { webhookDeliveries: { deliveries: { id: string; status: string; eventTypes: string[] }[] } })
      .webhookDeliveries;
    assert.deepEqual(
      page.deliveries.map((d) => [d.status, d.eventTypes]),
      [['succeeded', ['webhook.test']]],
    );
    const replayed = await manager.client.request(
      'mutation ($id: ID!, $d: ID) { replayWebhookDeliveries(webhookId: $id, deliveryId: $d) }',
      {
        id: webhook.id,
        d: page.deliveries[0]!.id,
      },
    );
    assert.equal((replayed.body.data as { replayWebhookDeliveries: number }).replayWebhookDeliveries, 1);
    const bad = await manager.client.request(create, { input: { url: 'http://169.254.169.254/', events: ['alert.opened'] } });
    assert.equal(bad.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', JSON.stringify(bad.body));
    const disabled = await manager.client.request(
      'mutation ($id: ID!) { updateWebhook(id: $id, input: {enabled: false}) { enabled health { state } } }',
      {
        id: webhook.id,
      },
    );
    assert.deepEqual((disabled.body.data as { updateWebhook: unknown }).updateWebhook, { enabled: false, health: { state: 'disabled' } });
    const deleted = await manager.client.request('mutation ($id: ID!) { deleteWebhook(id: $id) }', { id: webhook.id });
    assert.equal((deleted.body.data as { deleteWebhook: boolean }).deleteWebhook, true);
  });

  test('Viewers and Installers have no webhook operation in their schema', async () => {
    for (const role of ['Viewer', 'Installer'] as const) {
      const user = await signInAs(server, role);
      assertGraphqlError(
        await user.client.request('{ webhooks { id } }'),
        'BAD_USER_INPUT',
        /^Cannot query field "webhooks" on type "Query"/,
      );
      const refused = await user.client.request(create, { input: { url: receiver.url, events: ['alert.opened'] } });
      assert.deepEqual(
        refused.body.errors?.map((e) => e.message),
        ['Unknown type "WebhookInput".', 'Cannot query field "createWebhook" on type "Mutation".'],
      );
      assert.equal(refused.body.data, undefined);
    }
  });
});
