/**
 * SPEC section 13, notification channels through the real server on both stores: e-mail to a real SMTP server on
 * loopback, chat to a node:http receiver, the test action, validation naming the field, roles and tenancy.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { assertBadInput, dataOf, signInAs, type SignedInUser } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { manualEngineEnv } from '../../domain/alerts/alert-test-helpers.js';
import { createRule, send } from '../../domain/rules/rule-test-helpers.js';
import { Receiver, until, webhookTestEnv } from '../webhooks/webhook-helpers.js';
import { MailServer } from './channel-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const publicUrl = 'https://td.example.test';

for (const target of storeTargets) {
  describe(`notification channels on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let otherRest: RestClient;
    let viewer: SignedInUser;
    const mail = new MailServer();
    const chat = new Receiver();

    const createChannel = async (body: Record<string, unknown>): Promise<string> => {
      const response = await rest.post('/notification-channels', body);
      assert.equal(response.status, 200, response.text);
      return response.body.data.id as string;
    };
    const chatTexts = (tuid: string) =>
      chat.received.map((r) => (JSON.parse(r.body) as { text: string }).text).filter((t) => t.split('\n')[0]!.endsWith(` on ${tuid}`));

    before(async () => {
      await mail.start();
      await chat.start();
      server = await startTestApp({
        ...manualEngineEnv,
        ...webhookTestEnv,
        WEBHOOK_RETRY_SCHEDULE: '0,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3',
        DATABASE_URL: await target.createUrl(),
        SMTP_URL: mail.url,
        SMTP_FROM: 'alerts@td.example.test',
        PUBLIC_URL: publicUrl,
        NOTIFY_MIN_INTERVAL_S: '1',
        NOTIFY_DIGEST_THRESHOLD: '3',
        NOTIFY_DIGEST_WINDOW_S: '2',
      });
      rest = new RestClient(server);
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Other', id: 'other' });
      const other = await createApiClient(deps, { organizationId: 'other', name: 'other' });
      otherRest = new RestClient(server, { client_id: other.client.clientId, client_secret: other.clientSecret });
      viewer = await signInAs(server, 'Viewer');
    });
    after(async () => {
      await server?.stop();
      await mail.stop();
      await chat.stop();
    });

    test('an e-mail channel tells its recipients when a rule alert opens and closes: subject, recipients, value, link', async () => {
      const channel = await createChannel({ name: 'shift lead', type: 'email', to: ['lead@example.test', 'ops@example.test'] });
      const rule = await createRule(rest, { name: 'too warm', channels: [channel] });
      await until(() => server.app.store.channels.get('acme', channel), 5000, 'channel');
      await send(server, [{ tuid: 'MAIL-1', temp: 31.5 }]);
      const opened = await mail.waitFor((m) => m.subject.includes('on MAIL-1'));
      assert.equal(opened.subject, '[thingdesk] OPEN critical: temp > 30 on MAIL-1');
      assert.deepEqual(opened.to, ['lead@example.test', 'ops@example.test']);
      assert.equal(opened.from, 'alerts@td.example.test');
      assert.match(opened.raw, /Value: 31\.5/);
      assert.match(opened.raw, /Rule: too warm/);
      assert.ok(opened.raw.includes(`${publicUrl}/studio/things/MAIL-1`), opened.raw);
      // The close comes after NOTIFY_MIN_INTERVAL_S (1 s in this test), at once or when the interval ends.
      await send(server, [{ tuid: 'MAIL-1', temp: 20 }]);
      const closed = await mail.waitFor((m) => m.subject === '[thingdesk] CLOSED critical: temp > 30 on MAIL-1');
      assert.deepEqual(closed.to, ['lead@example.test', 'ops@example.test']);
      // The SMTP server holds the message before its 250 reaches the sender, so the log may still say pending here.
      const statuses = async () =>
        ((await rest.get(`/notification-channels/${channel}/deliveries`)).body.data as { status: string }[]).map((d) => d.status);
      await until(async () => (await statuses()).every((s) => s !== 'pending') || undefined, 5000, 'deliveries settled');
      assert.deepEqual(await statuses(), ['succeeded', 'succeeded']);
      assert.ok(rule);
    });

    test('a chat channel gets {"text": subject line + details}; the test action sends now and is logged', async () => {
      const channel = await createChannel({ name: 'team chat', type: 'chat', url: `${chat.url.replace('/hook', '/slack')}` });
      await createRule(rest, { name: 'chat rule', threshold: 50, severity: 'warning', channels: [channel] });
      await until(() => server.app.store.channels.get('acme', channel), 5000, 'channel');
      await new Promise((resolve) => setTimeout(resolve, 100));
      await send(server, [{ tuid: 'CHAT-1', temp: 55 }]);
      await until(() => chatTexts('CHAT-1').length > 0 || undefined, 10_000, 'chat message');
      const [text] = chatTexts('CHAT-1');
      assert.equal(text!.split('\n')[0], '[thingdesk] OPEN warning: temp > 50 on CHAT-1');
      assert.match(text!, /Value: 55/);
      assert.equal(chat.received.at(-1)!.path, '/slack');

      const tested = await rest.post(`/notification-channels/${channel}/test`, {});
      assert.equal(tested.status, 200, tested.text);
      assert.equal(tested.body.data.error, null);
      assert.equal(tested.body.data.status_code, 200);
      assert.ok(chat.received.some((r) => (JSON.parse(r.body) as { text: string }).text.startsWith('[thingdesk] Test notification')));
      const log = (await rest.get(`/notification-channels/${channel}/deliveries`)).body.data as { event_types: string[] }[];
      assert.ok(log.some((d) => d.event_types.includes('channel.test')));
    });

    test('the e-mail test action reaches the SMTP server', async () => {
      const channel = await createChannel({ name: 'mail test', type: 'email', to: ['test@example.test'] });
      const tested = await rest.post(`/notification-channels/${channel}/test`, {});
      assert.equal(tested.status, 200, tested.text);
      assert.equal(tested.body.data.error, null);
      const received = await mail.waitFor((m) => m.to.includes('test@example.test'));
      assert.match(received.subject, /^\[thingdesk\] Test notification for channel mail test$/);
    });

    test('invalid channels are refused naming the field, and nothing is created', async () => {
      const before = ((await rest.get('/notification-channels')).body.data as unknown[]).length;
      const cases: [Record<string, unknown>, string][] = [
        [{ name: '', type: 'email', to: ['a@example.test'] }, 'name'],
        [{ name: 'x', type: 'email' }, 'to'],
        [{ name: 'x', type: 'email', to: [] }, 'to'],
        [{ name: 'x', type: 'email', to: ['not an address'] }, 'to'],
        [{ name: 'x', type: 'email', to: ['a@example.test'], url: 'https://hooks.example.test/x' }, 'url'],
        [{ name: 'x', type: 'chat' }, 'url'],
        [{ name: 'x', type: 'chat', url: 'ftp://example.test/x' }, 'url'],
        [{ name: 'x', type: 'chat', url: 'http://169.254.169.254/latest' }, 'url'],
        [{ name: 'x', type: 'chat', url: 'http://10.1.2.3/hook' }, 'url'],
        [{ name: 'x', type: 'chat', url: 'https://hooks.example.test/x', to: ['a@example.test'] }, 'to'],
        [{ name: 'x', type: 'sms', to: ['a@example.test'] }, 'type'],
      ];
      for (const [body, field] of cases) {
        const response = await rest.post('/notification-channels', body);
        assert.equal(response.status, 400, `${JSON.stringify(body)}: ${response.text}`);
        const fields = (response.body.errors as { field: string }[]).map((e) => e.field);
        assert.ok(
          fields.some((f) => f === field || f.startsWith(`${field}`) || f === `/${field}`),
          `${JSON.stringify(body)} names ${field}: ${response.text}`,
        );
      }
      assert.equal(((await rest.get('/notification-channels')).body.data as unknown[]).length, before);
      const channel = await createChannel({ name: 'valid', type: 'email', to: ['a@example.test'] });
      const patched = await rest.request('PATCH', `/notification-channels/${channel}`, { body: { to: ['bad'] } });
      assert.equal(patched.status, 400, patched.text);
      assert.deepEqual((await rest.get(`/notification-channels/${channel}`)).body.data.to, ['a@example.test']);
      const ok = await rest.request('PATCH', `/notification-channels/${channel}`, { body: { to: ['b@example.test'], name: 'renamed' } });
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual([ok.body.data.name, ok.body.data.to], ['renamed', ['b@example.test']]);
    });

    test('another organization cannot read, change, test or use one', async () => {
      const channel = await createChannel({ name: 'private', type: 'email', to: ['secret@example.test'] });
      assert.deepEqual((await otherRest.get('/notification-channels')).body.data, []);
      assert.equal((await otherRest.get(`/notification-channels/${channel}`)).status, 404);
      assert.equal((await otherRest.request('PATCH', `/notification-channels/${channel}`, { body: { name: 'x' } })).status, 404);
      assert.equal((await otherRest.post(`/notification-channels/${channel}/test`, {})).status, 404);
      assert.equal((await otherRest.get(`/notification-channels/${channel}/deliveries`)).status, 404);
      assert.equal((await otherRest.delete(`/notification-channels/${channel}`)).status, 404);
      // A rule of the other organization cannot list it, nor can its built-in alerts.
      const rule = await otherRest.post('/alert-rules', {
        name: 'steal',
        tsm_id: 4242,
        field: 'temp',
        op: 'gt',
        threshold: 1,
        severity: 'info',
        channels: [channel],
      });
      assert.equal(rule.status, 400, rule.text);
      assert.equal(rule.body.errors[0].field, 'channels');
      const org = await otherRest.request('PATCH', '/organization', { body: { alert_channels: { 'battery low': [channel] } } });
      assert.equal(org.status, 400, org.text);
      assert.match(org.body.errors[0].field, /alert_?[cC]hannels/);
      // Its own organization may.
      const own = await rest.request('PATCH', '/organization', { body: { alert_channels: { 'battery low': [channel] } } });
      assert.equal(own.status, 200, own.text);
      assert.deepEqual(own.body.data.alert_channels, { 'battery low': [channel] });
      assert.deepEqual((await rest.get('/organization')).body.data.alert_channels, { 'battery low': [channel] });
      assert.deepEqual((await otherRest.get('/organization')).body.data.alert_channels, {}, 'the other organization reads its own, none');
      assert.equal((await rest.delete(`/notification-channels/${channel}`)).status, 200);
    });

    test('GraphQL: Managers create, list, test and delete channels; Viewers and other organizations see none', async () => {
      const manager = await signInAs(server, 'Manager');
      const created = dataOf(
        await manager.client.request(
          'mutation($input: NotificationChannelInput!) { createNotificationChannel(input: $input) { id name type to url } }',
          { input: { name: 'gql mail', type: 'email', to: ['gql@example.test'] } },
        ),
      ).createNotificationChannel as { id: string; type: string; to: string[] };
      assert.deepEqual([created.type, created.to], ['email', ['gql@example.test']]);
      assertBadInput(
        await manager.client.request('mutation($input: NotificationChannelInput!) { createNotificationChannel(input: $input) { id } }', {
          input: { name: 'bad', type: 'email', to: ['nope'] },
        }),
        ['to'],
      );
      const listed = dataOf(await manager.client.request('{ notificationChannels { id name } }')).notificationChannels as { id: string }[];
      assert.ok(listed.some((c) => c.id === created.id));
      const tested = dataOf(await manager.client.request(`mutation { testNotificationChannel(id: "${created.id}") { error } }`));
      assert.deepEqual(tested.testNotificationChannel, { error: null });
      const set = await manager.client.request(`mutation { setAlertChannels(input: { batteryLow: ["${created.id}"] }) }`);
      assert.deepEqual(dataOf(set).setAlertChannels, true);
      assert.deepEqual(await server.app.store.channels.alertChannels('acme'), { 'battery low': [created.id] });
      // A Viewer's schema has no channels at all: the query fails validation, naming nothing of the organization's.
      const refused = await viewer.client.request('{ notificationChannels { id to } }');
      assert.ok(refused.body.errors?.length, JSON.stringify(refused.body));
      assert.equal(refused.body.data ?? undefined, undefined);
      const deniedWrite = await viewer.client.request(`mutation { deleteNotificationChannel(id: "${created.id}") }`);
      assert.ok(deniedWrite.body.errors?.length);
      // Another organization's Manager sees none of them and cannot delete one.
      const otherManager = await signInAs(server, 'Manager', { organizationId: 'other', organizationName: 'Other' });
      assert.deepEqual(dataOf(await otherManager.client.request('{ notificationChannels { id } }')).notificationChannels, []);
      const foreign = await otherManager.client.request(`mutation { deleteNotificationChannel(id: "${created.id}") }`);
      assert.equal(foreign.body.errors?.[0]?.extensions?.code, 'NOT_FOUND', JSON.stringify(foreign.body));
      assert.deepEqual(dataOf(await manager.client.request(`mutation { deleteNotificationChannel(id: "${created.id}") }`)), {
        deleteNotificationChannel: true,
      });
    });
  });
}
