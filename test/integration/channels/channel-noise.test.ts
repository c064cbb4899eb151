/**
 * SPEC section 13, notifications that never block and never flood, through the real server on both stores: a mail
 * server down then up (the notification arrives later, ingest never waited), a flapping (rule, thing) notified at
 * most once per NOTIFY_MIN_INTERVAL_S with the latest state at the interval's end, 500 openings in a window giving
 * one digest, and built-in alerts notifying the channels of `alert_channels`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';
import { manualEngineEnv } from '../../domain/alerts/alert-test-helpers.js';
import { createRule, send } from '../../domain/rules/rule-test-helpers.js';
import { Receiver, until, webhookTestEnv } from '../webhooks/webhook-helpers.js';
import { MailServer } from './channel-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// 500 things open in a window long enough to hold all their openings on a busy host (PostgreSQL's round trips take longer).
const digestCase = (postgres: boolean) => ({ things: 500, windowS: postgres ? 40 : 30 });

for (const target of storeTargets) {
  const { things, windowS } = digestCase(target.name === 'postgres');
  describe(`notification noise control on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    const mail = new MailServer();
    const chat = new Receiver();

    const createChannel = async (body: Record<string, unknown>): Promise<string> => {
      const response = await rest.post('/notification-channels', body);
      assert.equal(response.status, 200, response.text);
      return response.body.data.id as string;
    };
    const texts = () => chat.received.map((r) => (JSON.parse(r.body) as { text: string }).text);
    const firstLines = (suffix: string) =>
      texts()
        .map((t) => t.split('\n')[0]!)
        .filter((line) => line.endsWith(suffix));
    const chatRule = async (name: string, threshold: number, field = 'temp') => {
      const channel = await createChannel({ name, type: 'chat', url: chat.url });
      const rule = await createRule(rest, { name, threshold, field, severity: 'warning', channels: [channel] });
      // The channel view reloads on the change; a moment for it.
      await sleep(200);
      return { channel, rule };
    };

    before(async () => {
      await mail.start();
      await chat.start();
      server = await startTestApp({
        ...manualEngineEnv,
        ...webhookTestEnv,
        WEBHOOK_RETRY_SCHEDULE: '0,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3,0.3',
        DATABASE_URL: await target.createUrl(),
        SMTP_URL: mail.url,
        SMTP_FROM: 'alerts@td.example.test',
        NOTIFY_MIN_INTERVAL_S: '1',
        NOTIFY_DIGEST_THRESHOLD: '3',
        NOTIFY_DIGEST_WINDOW_S: String(windowS),
      });
      rest = new RestClient(server);
    });
    after(async () => {
      await server?.stop();
      await mail.stop();
      await chat.stop();
    });

    test('a mail server that is down: ingest and evaluation do not wait; the e-mail arrives once it is back', async () => {
      const channel = await createChannel({ name: 'down then up', type: 'email', to: ['late@example.test'] });
      await createRule(rest, { name: 'down rule', threshold: 70, channels: [channel] });
      await sleep(200);
      await mail.stop();
      const started = performance.now();
      await send(server, [{ tuid: 'DOWN-1', temp: 75 }]);
      const took = performance.now() - started;
      assert.ok(took < 2000, `ingest and evaluation took ${took} ms with the mail server down`);
      // Failed attempts are logged while it is down.
      await until(
        async () => {
          const log = (await rest.get(`/notification-channels/${channel}/deliveries`)).body.data as {
            status: string;
            attempts: { error: string | null }[];
          }[];
          return log[0] && log[0].attempts.length >= 2 && log[0].status === 'pending' ? log : undefined;
        },
        10_000,
        'failed attempts in the log',
      );
      assert.equal(mail.received.filter((m) => m.to.includes('late@example.test')).length, 0);
      await mail.start();
      const arrived = await mail.waitFor((m) => m.to.includes('late@example.test'), 15_000);
      assert.equal(arrived.subject, '[thingdesk] OPEN critical: temp > 70 on DOWN-1');
      await until(
        async () =>
          (await rest.get(`/notification-channels/${channel}/deliveries`)).body.data[0].status === 'succeeded' ? true : undefined,
        10_000,
        'the delivery settled',
      );
      const log = (await rest.get(`/notification-channels/${channel}/deliveries`)).body.data as { attempts: { error: string | null }[] }[];
      assert.ok(
        log[0]!.attempts.some((a) => a.error !== null && /smtp/.test(a.error)),
        JSON.stringify(log[0]),
      );
    });

    test('flapping at 10 changes a second notifies at most once per interval, and the last state at its end', async () => {
      await chatRule('flapping', 40);
      const started = Date.now();
      for (let i = 0; i < 25; i += 1) {
        await send(server, [{ tuid: 'FLAP-1', temp: i % 2 === 0 ? 45 : 35 }]);
        await sleep(100);
      }
      const elapsedS = (Date.now() - started) / 1000;
      // The 25th change (index 24) opened: that is the state the recipients must hear last.
      await until(() => firstLines(' on FLAP-1').at(-1)?.includes('OPEN') && Date.now() - started > 2200, 10_000, 'last state');
      await sleep(1200);
      const lines = firstLines(' on FLAP-1');
      // One at once, then at most one per interval (1 s) and one at the end of the last.
      assert.ok(lines.length <= Math.ceil(elapsedS) + 2, `${lines.length} notifications in ${elapsedS} s: ${lines.join(' | ')}`);
      assert.ok(lines.length >= 2, lines.join(' | '));
      assert.equal(lines[0], '[thingdesk] OPEN warning: temp > 40 on FLAP-1');
      assert.equal(lines.at(-1), '[thingdesk] OPEN warning: temp > 40 on FLAP-1');
      for (let i = 1; i < lines.length; i += 1) assert.notEqual(lines[i], lines[i - 1], 'never the same state twice in a row');
    });

    test(`${things} things opening within the window: 3 notified singly, the rest in one digest listing each TUID and value`, async () => {
      // Its own field: the other tests' rules on temp stay quiet.
      await chatRule('gateway down', 90, 'load');
      const tuids = Array.from({ length: things }, (_, i) => `DIG-${String(i).padStart(3, '0')}`);
      await send(
        server,
        tuids.map((tuid, i) => ({ tuid, load: 91 + i / 1000 })),
      );
      await until(() => firstLines('more things').some((l) => l.includes('load > 90')) || undefined, (windowS + 20) * 1000, 'the digest');
      await sleep(500);
      const singles = firstLines('').filter((l) => /OPEN warning: load > 90 on DIG-/.test(l));
      assert.equal(singles.length, 3, singles.join(' | '));
      const digests = texts().filter((t) => t.startsWith(`[thingdesk] OPEN warning: load > 90 on ${things - 3} more things`));
      assert.equal(
        digests.length,
        1,
        texts()
          .filter((t) => t.includes('more things'))
          .map((t) => t.split('\n')[0])
          .join(' | '),
      );
      const listed = digests[0]!.split('\n').slice(1);
      assert.equal(listed.length, things - 3);
      assert.match(listed[0]!, /^DIG-\d{3}: value 91\.\d+ at /);
      const named = new Set(listed.map((l) => l.split(':')[0]));
      for (const line of singles) named.add(line.split(' on ')[1]!);
      assert.equal(named.size, things, 'every thing is in a single notification or the digest');
    });

    test('built-in alerts notify the channels of alert_channels', async () => {
      const channel = await createChannel({ name: 'battery chat', type: 'chat', url: chat.url });
      const set = await rest.request('PATCH', '/organization', { body: { alert_channels: { 'battery low': [channel] } } });
      assert.equal(set.status, 200, set.text);
      const unknown = await rest.request('PATCH', '/organization', { body: { alert_channels: { 'battery low': ['nch_nope'] } } });
      assert.equal(unknown.status, 400, unknown.text);
      const wrongType = await rest.request('PATCH', '/organization', { body: { alert_channels: { 'too hot': [channel] } } });
      assert.equal(wrongType.status, 400, wrongType.text);
      await sleep(200);
      await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_800_000_000, tsmTuid: 'BAT-N1', batl: 5 }], 'GW-BAT');
      await server.app.alertEngine.settled();
      await until(() => firstLines(' on BAT-N1').length > 0 || undefined, 10_000, 'battery notification');
      assert.deepEqual(firstLines(' on BAT-N1'), ['[thingdesk] OPEN warning: battery low on BAT-N1']);
    });
  });
}
