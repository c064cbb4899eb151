/** `thingdesk webhook create|list|deliveries|replay --org ...` (SPEC section 11) on the store a running platform serves. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../helpers/databases.js';
import { RestClient } from '../helpers/rest-client.js';
import { runThingdesk } from '../helpers/run-cli.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients } from '../helpers/uplinks.js';
import { Receiver, publishReadings, until, verify } from '../integration/webhooks/webhook-helpers.js';

after(cleanupStores);
after(closeMqttClients);

describe('thingdesk webhook', () => {
  let server: TestApp;
  let receiver: Receiver;
  let env: Record<string, string>;

  before(async () => {
    receiver = await new Receiver().start();
    server = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', WEBHOOK_RETRY_SCHEDULE: '0' });
    env = { DATABASE_URL: server.config.databaseUrl, WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' };
  });
  after(async () => {
    await server?.stop();
    await receiver?.stop();
  });

  test('create prints the secret once; list shows the endpoint; a refused address names --url', async () => {
    const created = await runThingdesk(
      ['webhook', 'create', '--org', 'acme', '--url', receiver.url, '--events', 'message.stored', '--tuids', 'CLI-1', '--json'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const record = JSON.parse(created.stdout) as { id: string; secret: string; events: string };
    assert.match(record.secret, /^whsec_/);
    assert.equal(record.events, 'message.stored');
    const listed = await runThingdesk(['webhook', 'list', '--org', 'acme', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(listed.stdout.includes(record.id) && !listed.stdout.includes(record.secret));
    const refused = await runThingdesk(
      ['webhook', 'create', '--org', 'acme', '--url', 'http://10.0.0.1/', '--events', 'message.stored'],
      env,
    );
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /--url/);
    // The running platform signs with the secret the CLI printed, once its view has the endpoint (told here at once).
    server.app.events.emit('webhooksChanged', { organizationId: 'acme' });
    await until(async () => {
      await publishReadings(server, 'CLI-1', 1);
      return receiver.received.length > 0 || undefined;
    });
    const [got] = receiver.received;
    verify(record.secret, got!);
  });

  test('deliveries shows a failed delivery; replay queues it again', async () => {
    const failing = new Receiver();
    await failing.start();
    failing.respond = (_r, res) => res.writeHead(500).end();
    const rest = new RestClient(server);
    const hook = (await rest.post('/webhooks', { url: failing.url, events: ['message.stored'], tuids: ['CLI-2'] })).body.data.id as string;
    await publishReadings(server, 'CLI-2', 1);
    await failing.waitFor(1);
    const failed = await until(async () => {
      const out = await runThingdesk(['webhook', 'deliveries', '--org', 'acme', hook, '--status', 'failed', '--json'], env);
      return out.stdout.includes('"status":"failed"') ? out : undefined;
    });
    assert.equal(failed.code, 0, failed.stderr);
    const replayed = await runThingdesk(['webhook', 'replay', '--org', 'acme', hook, '--since', '0', '--json'], env);
    assert.equal(replayed.code, 0, replayed.stderr);
    assert.deepEqual(JSON.parse(replayed.stdout), { webhookId: hook, replayed: 1 });
    await failing.waitFor(2);
    assert.equal(failing.received[1]!.headers['webhook-id'], failing.received[0]!.headers['webhook-id']);
    const other = await runThingdesk(['webhook', 'deliveries', '--org', 'other-org', hook], env);
    assert.notEqual(other.code, 0);
    await failing.stop();
  });
});
