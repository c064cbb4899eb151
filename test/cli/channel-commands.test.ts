/** `thingdesk channel update|test|list --org ...` (SPEC section 13) on the store a running platform serves. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../helpers/databases.js';
import { RestClient } from '../helpers/rest-client.js';
import { runThingdesk } from '../helpers/run-cli.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients } from '../helpers/uplinks.js';
import { MailServer } from '../integration/channels/channel-helpers.js';
import { Receiver } from '../integration/webhooks/webhook-helpers.js';

after(cleanupStores);
after(closeMqttClients);

interface Channel {
  id: string;
  name: string;
  to: string[] | null;
  url: string | null;
}

describe('thingdesk channel', () => {
  let server: TestApp;
  let rest: RestClient;
  let env: Record<string, string>;
  const mail = new MailServer();
  const chat = new Receiver();

  const create = async (body: Record<string, unknown>) => {
    const response = await rest.post('/notification-channels', body);
    assert.equal(response.status, 200, response.text);
    return response.body.data as Channel;
  };
  const read = async (id: string) => (await rest.get(`/notification-channels/${id}`)).body.data as Channel;

  before(async () => {
    await mail.start();
    await chat.start();
    server = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', WEBHOOK_RETRY_SCHEDULE: '0', SMTP_URL: mail.url });
    rest = new RestClient(server);
    env = {
      DATABASE_URL: server.config.databaseUrl,
      WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
      WEBHOOK_TIMEOUT_MS: '2000',
      SMTP_URL: mail.url,
      SMTP_FROM: 'cli@td.example.test',
    };
  });
  after(async () => {
    await server?.stop();
    await mail.stop();
    await chat.stop();
  });

  test('update changes name and recipients, with the same rules as REST naming the flag; the type stays', async () => {
    const channel = await create({ name: 'cli mail', type: 'email', to: ['a@example.test'] });
    const updated = await runThingdesk(
      ['channel', 'update', channel.id, '--org', 'acme', '--name', 'cli renamed', '--to', 'b@example.test, c@example.test', '--json'],
      env,
    );
    assert.equal(updated.code, 0, updated.stderr);
    assert.deepEqual(JSON.parse(updated.stdout), {
      id: channel.id,
      name: 'cli renamed',
      type: 'email',
      to: 'b@example.test,c@example.test',
      url: null,
    });
    const stored = await read(channel.id);
    assert.equal(stored.name, 'cli renamed');
    assert.deepEqual(stored.to, ['b@example.test', 'c@example.test']);

    for (const [args, flag] of [
      [['--to', 'not an address'], '--to'],
      [['--name', ''], '--name'],
      [['--url', 'https://hooks.example.test/x'], '--url'],
    ] as const) {
      const refused = await runThingdesk(['channel', 'update', channel.id, '--org', 'acme', ...args], env);
      assert.notEqual(refused.code, 0, `${args.join(' ')} was accepted`);
      assert.ok(refused.stderr.includes(flag), `${args.join(' ')}: ${refused.stderr}`);
    }
    assert.equal((await read(channel.id)).name, 'cli renamed', 'a refused update changes nothing');
    assert.deepEqual((await read(channel.id)).to, ['b@example.test', 'c@example.test']);

    const unknown = await runThingdesk(['channel', 'update', 'nch_missing', '--org', 'acme', '--name', 'x'], env);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /channel id/);
    const foreign = await runThingdesk(['channel', 'update', channel.id, '--org', 'other-org', '--name', 'x'], env);
    assert.notEqual(foreign.code, 0);
    assert.equal((await read(channel.id)).name, 'cli renamed');
  });

  test('update of a chat URL follows the address rules; list shows no chat URL whole', async () => {
    const channel = await create({ name: 'cli chat', type: 'chat', url: `${chat.url}/first-secret` });
    const refused = await runThingdesk(['channel', 'update', channel.id, '--org', 'acme', '--url', 'http://10.0.0.1/hook'], env);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /--url/);
    const updated = await runThingdesk(
      ['channel', 'update', channel.id, '--org', 'acme', '--url', `${chat.url}/second-secret`, '--json'],
      env,
    );
    assert.equal(updated.code, 0, updated.stderr);
    assert.ok(!updated.stdout.includes('second-secret'), updated.stdout);
    const stored = await server.app.store.channels.get('acme', channel.id);
    assert.equal(stored!.url, `${chat.url}/second-secret`);
    const listed = await runThingdesk(['channel', 'list', '--org', 'acme', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(listed.stdout.includes(channel.id));
    assert.ok(!listed.stdout.includes('secret'), listed.stdout);
  });

  test('test sends an e-mail from the command (no running platform needed) and logs it in the deliveries', async () => {
    const channel = await create({ name: 'cli test mail', type: 'email', to: ['cli-test@example.test'] });
    const tested = await runThingdesk(['channel', 'test', channel.id, '--org', 'acme', '--json'], env);
    assert.equal(tested.code, 0, tested.stderr);
    const printed = JSON.parse(tested.stdout) as { channelId: string; error: string | null };
    assert.equal(printed.channelId, channel.id);
    assert.equal(printed.error, null);
    const received = await mail.waitFor((m) => m.to.includes('cli-test@example.test'));
    assert.equal(received.subject, '[thingdesk] Test notification for channel cli test mail');
    assert.equal(received.from, 'cli@td.example.test');
    const log = (await rest.get(`/notification-channels/${channel.id}/deliveries`)).body.data as {
      event_types: string[];
      status: string;
      attempts: unknown[];
    }[];
    assert.equal(log.length, 1);
    assert.deepEqual(log[0]!.event_types, ['channel.test']);
    assert.equal(log[0]!.status, 'succeeded');
    assert.equal(log[0]!.attempts.length, 1);
  });

  test('a failed test prints the error and exits non-zero; an unknown channel names the id', async () => {
    const channel = await create({ name: 'cli dead chat', type: 'chat', url: 'http://127.0.0.1:9/hook' });
    const failed = await runThingdesk(['channel', 'test', channel.id, '--org', 'acme', '--json'], env);
    assert.equal(failed.code, 1, failed.stdout);
    const printed = JSON.parse(failed.stdout) as { error: string | null };
    assert.ok(printed.error, failed.stdout);
    assert.match(failed.stderr, /test notification failed/);
    const log = (await rest.get(`/notification-channels/${channel.id}/deliveries`)).body.data as { status: string }[];
    assert.deepEqual(
      log.map((d) => d.status),
      ['failed'],
    );
    const unknown = await runThingdesk(['channel', 'test', 'nch_missing', '--org', 'acme'], env);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /channel id/);
  });
});
