/**
 * SPEC section 13, "at most NOTIFY_DIGEST_THRESHOLD openings notified singly in any 60 s", through the real server on
 * both stores, on a manual clock (the writer dates the deliveries and the dispatcher sends them on it): three
 * openings near the end of a window and three just after it give four singles and one digest, not six singles; the
 * digest goes out a window after its first entry and counts as one message (also for a restarted platform); after a
 * quiet window the count starts over.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { manualEngineEnv } from '../../domain/alerts/alert-test-helpers.js';
import { createRule, send } from '../../domain/rules/rule-test-helpers.js';
import { Receiver, until, webhookTestEnv } from '../webhooks/webhook-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const windowMs = 2_000;

interface LoggedDelivery {
  event_types: string[];
  status: string;
  next_attempt_at: number | null;
}

for (const target of storeTargets) {
  describe(`the digest's sliding window on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    const chat = new Receiver();
    const clock = new ManualClock(Date.UTC(2026, 10, 28, 5, 0, 0));
    const start = clock.now();
    let channel = '';
    let databaseUrl = '';
    const startServer = async () => {
      server = await startTestApp(
        {
          ...manualEngineEnv,
          ...webhookTestEnv,
          DATABASE_URL: databaseUrl,
          NOTIFY_MIN_INTERVAL_S: '1',
          NOTIFY_DIGEST_THRESHOLD: '3',
          NOTIFY_DIGEST_WINDOW_S: String(windowMs / 1000),
        },
        { clock },
      );
      rest = new RestClient(server);
    };

    const texts = () => chat.received.map((r) => (JSON.parse(r.body) as { text: string }).text);
    const singles = () => texts().filter((t) => /^\[thingdesk\] OPEN warning: hum > 50 on W-\d$/.test(t.split('\n')[0]!));
    const digests = () => texts().filter((t) => / on \d+ more things$/.test(t.split('\n')[0]!));
    const log = async (): Promise<LoggedDelivery[]> => {
      const response = await rest.get(`/notification-channels/${channel}/deliveries?limit=100`);
      assert.equal(response.status, 200, response.text);
      return response.body.data as LoggedDelivery[];
    };
    const ofType = (deliveries: LoggedDelivery[], type: string) => deliveries.filter((d) => d.event_types.includes(type));
    /** Opens these things at `offsetMs` on the clock; resolves once their alerts (and deliveries) are committed. */
    const openAt = async (offsetMs: number, tuids: string[]) => {
      clock.set(start + offsetMs);
      await send(
        server,
        tuids.map((tuid) => ({ tuid, hum: 60 })),
      );
    };

    before(async () => {
      await chat.start();
      databaseUrl = await target.createUrl();
      await startServer();
      const created = await rest.post('/notification-channels', { name: 'window', type: 'chat', url: chat.url });
      assert.equal(created.status, 200, created.text);
      channel = created.body.data.id as string;
      await createRule(rest, { name: 'humid', field: 'hum', threshold: 50, severity: 'warning', channels: [channel] });
      // The channel view reloads on the change: probe with new things, a long window before the test's time, until
      // one is routed to the channel (its single is then out of every window the tests look at).
      let probe = 0;
      await until(
        async () => {
          await openAt(-100_000, [`PROBE-${(probe += 1)}`]);
          return (await log()).length > 0 || undefined;
        },
        10_000,
        'the channel view to route the rule',
      );
    });
    after(async () => {
      await server?.stop();
      await chat.stop();
    });

    test('three openings near the end of a window and three just after it: four singles and one digest, due a window after its first entry', async () => {
      // W-0 singly at 0, two more at 1.9 s: three singles in the window.
      await openAt(0, ['W-0']);
      await openAt(1_900, ['W-1', 'W-2']);
      // Just after the window a fixed window would have had: W-0 has left the last 2 s, W-1 and W-2 have not.
      await openAt(2_050, ['W-3', 'W-4', 'W-5']);
      const written = await log();
      assert.equal(ofType(written, 'alert.opened').length, 1 + 4, JSON.stringify(written));
      const [digest, ...more] = ofType(written, 'alert.digest');
      assert.equal(more.length, 0, JSON.stringify(written));
      assert.equal(digest!.status, 'pending');
      assert.equal(digest!.next_attempt_at, (start + 2_050 + windowMs) / 1000, 'due a window after its first entry');
      await until(() => singles().length === 4 || undefined, 10_000, 'the four singles');
      // Deliveries of one channel go out concurrently: their order of arrival is not theirs.
      assert.deepEqual(
        singles()
          .map((t) => t.split(' on ')[1]!.split('\n')[0])
          .sort(),
        ['W-0', 'W-1', 'W-2', 'W-3'],
      );
      assert.equal(digests().length, 0, 'the digest waits for its window');

      // Openings while the digest is pending join it.
      await openAt(3_000, ['W-6']);
      clock.set(start + 2_050 + windowMs);
      await until(() => digests().length === 1 || undefined, 10_000, 'the digest');
      const lines = digests()[0]!.split('\n');
      assert.equal(lines[0], '[thingdesk] OPEN warning: hum > 50 on 3 more things');
      assert.deepEqual(
        lines.slice(1).map((l) => l.split(':')[0]),
        ['W-4', 'W-5', 'W-6'],
        'each entry in the order of its opening',
      );
      assert.equal(singles().length, 4);
    });

    test('after a restart: the sent digest counts as one message; after a quiet window three go singly again', async () => {
      // The count is in the store: a restarted platform continues it.
      await server.stop();
      await startServer();
      // The digest went out at 4.05 s: with it, two more singles fit in the window that follows, then a new digest.
      await openAt(4_100, ['W-7', 'W-8', 'W-9']);
      await until(() => singles().length === 6 || undefined, 10_000, 'two more singles');
      assert.equal(ofType(await log(), 'alert.digest').length, 2);
      clock.set(start + 4_100 + windowMs);
      await until(() => digests().length === 2 || undefined, 10_000, 'the second digest');
      assert.match(digests()[1]!, /^\[thingdesk\] OPEN warning: hum > 50 on 1 more things\nW-9: /);
      // Quiet for a window after the second digest (sent at 6.1 s; send times are kept to a 60th of the window, so it
      // counts until at most 8.133 s): the count starts over.
      await openAt(4_100 + 2 * windowMs + 100, ['V-1', 'V-2', 'V-3']);
      const written = await log();
      assert.equal(ofType(written, 'alert.digest').length, 2, 'no new digest');
      await until(() => texts().filter((t) => / on V-\d$/.test(t.split('\n')[0]!)).length === 3 || undefined, 10_000, 'three singles');
    });
  });
}
