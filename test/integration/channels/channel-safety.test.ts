/**
 * SPEC sections 11 and 13, what a channel must never do: let a hung SMTP server hold up ingest or another channel,
 * or show a chat URL (a Slack incoming webhook's URL is its secret) in a log line, the audit log or a response
 * other than the one that created it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../../src/observability/logger.js';
import { cleanupStores } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { manualEngineEnv } from '../../domain/alerts/alert-test-helpers.js';
import { createRule, send } from '../../domain/rules/rule-test-helpers.js';
import { Receiver, until, webhookTestEnv, type LoggedDelivery } from '../webhooks/webhook-helpers.js';

after(cleanupStores);
after(closeMqttClients);

/** An SMTP server that accepts the connection and never says a word (no greeting): the sender must give up. */
class SilentSmtpServer {
  readonly sockets = new Set<Socket>();
  connections = 0;
  private readonly server: Server = createServer((socket) => {
    this.connections += 1;
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('notification channel safety', () => {
  let server: TestApp;
  let rest: RestClient;
  const smtp = new SilentSmtpServer();
  const chat = new Receiver();
  const lines: string[] = [];
  const deliveries = async (channel: string) =>
    (await rest.get(`/notification-channels/${channel}/deliveries`)).body.data as LoggedDelivery[];
  const createChannel = async (body: Record<string, unknown>) => {
    const response = await rest.post('/notification-channels', body);
    assert.equal(response.status, 200, response.text);
    return response.body.data as { id: string; url: string | null };
  };

  before(async () => {
    await smtp.start();
    await chat.start();
    const capture = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    server = await startTestApp(
      {
        ...manualEngineEnv,
        ...webhookTestEnv,
        // The silent server's attempt fails after 3 s (connection, greeting and socket timeouts).
        WEBHOOK_TIMEOUT_MS: '3000',
        WEBHOOK_RETRY_SCHEDULE: '0,0.2,0.2,0.2',
        SMTP_URL: smtp.url,
        SMTP_FROM: 'alerts@td.example.test',
        NOTIFY_MIN_INTERVAL_S: '1',
        LOG_LEVEL: 'trace',
      },
      { logger: createLogger('trace', capture) },
    );
    rest = new RestClient(server);
  });
  after(async () => {
    await server?.stop();
    await smtp.stop();
    await chat.stop();
  });

  test('a silent SMTP server: ingest goes on, the attempt times out and fails with an error, is retried; chat is delivered meanwhile', async () => {
    const mail = await createChannel({ name: 'silent mail', type: 'email', to: ['lead@example.test'] });
    const team = await createChannel({ name: 'team chat', type: 'chat', url: chat.url });
    await createRule(rest, { name: 'hung mail rule', channels: [mail.id, team.id] });
    await until(() => server.app.store.channels.get('acme', team.id), 5000, 'channels');

    await send(server, [{ tuid: 'HUNG-1', temp: 35 }]);
    await until(() => smtp.connections > 0 || undefined, 10_000, 'the SMTP connection');
    // While the e-mail's first attempt hangs on the silent server: uplinks are acknowledged and stored, and the chat
    // channel gets the same alert.
    await send(server, [
      { tuid: 'HUNG-2', temp: 10 },
      { tuid: 'HUNG-2', temp: 11 },
      { tuid: 'HUNG-2', temp: 12 },
    ]);
    const stored = await rest.get('/things/HUNG-2/messages?limit=10');
    assert.equal(stored.status, 200, stored.text);
    await until(() => chat.received.some((r) => r.body.includes('on HUNG-1')) || undefined, 10_000, 'the chat message');
    const pending = await deliveries(mail.id);
    assert.equal(smtp.sockets.size > 0, true, 'the SMTP attempt is still open');
    assert.equal(pending.length, 1);
    assert.deepEqual(
      pending[0]!.attempts,
      [],
      'the e-mail attempt was still pending when the uplinks were stored and the chat message sent',
    );
    assert.equal((stored.body.data as unknown[]).length, 3, 'the uplinks were stored while the SMTP attempt hung');

    // The attempt times out, is logged as failed with an error, and is retried.
    const retried = await until(
      async () => {
        const [delivery] = await deliveries(mail.id);
        return delivery && delivery.attempts.length >= 2 ? delivery : undefined;
      },
      30_000,
      'two logged attempts',
    );
    for (const attempt of retried.attempts) {
      assert.equal(attempt.status_code, null);
      assert.match(attempt.error ?? '', /^smtp: .*(timeout|timed out|never received)/i);
    }
    assert.ok(smtp.connections >= 2, 'the retry connected again');
    // The chat channel's delivery of that alert succeeded long before.
    const [chatDelivery] = await deliveries(team.id);
    assert.equal(chatDelivery!.status, 'succeeded');
  });

  test('a chat URL appears in no log line, no audit entry and no response but its creation', async () => {
    const marker = `SECRET-${randomBytes(12).toString('hex')}`;
    const url = `${chat.url.replace('/hook', '')}/hooks/${marker}`;
    const created = await createChannel({ name: 'secret chat', type: 'chat', url });
    assert.equal(created.url, url, 'the creation answers the URL once');
    // A chat URL nobody answers at: its failed attempts and retries are logged too.
    const marker3 = `SECRET-${randomBytes(12).toString('hex')}`;
    const dead = await createChannel({ name: 'dead secret chat', type: 'chat', url: `http://127.0.0.1:9/hooks/${marker3}` });
    await createRule(rest, { name: 'secret rule', threshold: 60, channels: [created.id, dead.id] });
    await until(() => server.app.store.channels.get('acme', created.id), 5000, 'channel');

    const tested = await rest.post(`/notification-channels/${created.id}/test`, {});
    assert.equal(tested.status, 200, tested.text);
    assert.equal(tested.body.data.status_code, 200);
    await send(server, [{ tuid: 'SECRET-1', temp: 61 }]);
    await until(() => chat.received.some((r) => r.path.includes(marker) && r.body.includes('on SECRET-1')) || undefined, 10_000, 'alert');
    await until(async () => (await deliveries(dead.id)).some((d) => d.status === 'failed') || undefined, 20_000, 'the dead chat failed');
    const deadTest = await rest.post(`/notification-channels/${dead.id}/test`, {});
    assert.equal(deadTest.status, 200, deadTest.text);
    assert.ok(deadTest.body.data.error, deadTest.text);
    // Refused change (the error must not echo the URL either), then a real change to another secret URL.
    const marker2 = `SECRET-${randomBytes(12).toString('hex')}`;
    const refused = await rest.request('PATCH', `/notification-channels/${created.id}`, {
      body: { url: `http://10.0.0.1/hooks/${marker2}` },
    });
    assert.equal(refused.status, 400, refused.text);
    const patched = await rest.request('PATCH', `/notification-channels/${created.id}`, {
      body: { name: 'renamed chat', url: `${chat.url.replace('/hook', '')}/hooks/${marker2}` },
    });
    assert.equal(patched.status, 200, patched.text);
    const gql = await rest.post('/graphql', { query: '{ notificationChannels { id url } }' });

    const responses = [
      deadTest.text,
      (await rest.get(`/notification-channels/${dead.id}/deliveries`)).text,
      (await rest.get('/notification-channels')).text,
      (await rest.get(`/notification-channels/${created.id}`)).text,
      (await rest.get(`/notification-channels/${created.id}/deliveries`)).text,
      tested.text,
      refused.text,
      patched.text,
      gql.text,
    ];
    for (const text of responses) {
      assert.ok(!text.includes(marker) && !text.includes(marker3), `the chat URL is in a response: ${text}`);
      assert.ok(!text.includes(marker2), `the changed chat URL is in a response: ${text}`);
    }
    const listed = ((await rest.get('/notification-channels')).body.data as { id: string; url: string }[]).find(
      (c) => c.id === created.id,
    )!;
    assert.match(listed.url, /^http:\/\/127\.0\.0\.1:\d+\/…$/, 'shown masked: scheme, host and port only');

    await rest.delete(`/notification-channels/${created.id}`);
    const audit = await rest.get('/audit?limit=200');
    assert.equal(audit.status, 200, audit.text);
    assert.ok(audit.text.includes(created.id), 'the audit log has the channel');
    for (const secret of [marker, marker2, marker3]) assert.ok(!audit.text.includes(secret), 'the chat URL is in the audit log');

    const text = lines.join('');
    assert.ok(lines.length > 10, 'the logs were captured');
    for (const secret of [marker, marker2, marker3]) assert.ok(!text.includes(secret), `a chat URL is in a log line: ${secret}`);
  });
});
