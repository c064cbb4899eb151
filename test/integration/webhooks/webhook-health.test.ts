/**
 * Webhooks (SPEC section 11) failing: a redirect to a private address is a failed attempt and never followed, an
 * endpoint failing for WEBHOOK_DISABLE_AFTER_S without a success is disabled (its deliveries wait), and /metrics
 * shows it all. One platform per store for the file.
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

interface Health {
  state: string;
  /** Unix seconds. */
  failing_since: number | null;
  last_error: string | null;
}
interface Delivery {
  id: string;
  status: string;
  attempts: { status_code: number | null; error: string | null }[];
}

/** The value of one series in the Prometheus text (0 when absent). */
function series(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : 0;
}

for (const target of storeTargets) {
  describe(`webhook failures on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    const receivers: Receiver[] = [];
    const receiver = async () => {
      const r = await new Receiver().start();
      receivers.push(r);
      return r;
    };
    const create = async (body: Record<string, unknown>) => {
      const response = await rest.post('/webhooks', body);
      assert.equal(response.status, 200, response.text);
      return response.body.data as { id: string };
    };
    const endpoint = async (id: string) => (await rest.get(`/webhooks/${id}`)).body.data as { enabled: boolean; health: Health };
    const log = async (id: string) => (await rest.get(`/webhooks/${id}/deliveries`)).body.data as Delivery[];

    before(async () => {
      const env = { WEBHOOK_DISABLE_AFTER_S: '1' };
      ({ server, rest } = await startWebhookApp(target.name === 'postgres' ? { ...env, DATABASE_URL: await target.createUrl() } : env));
    });
    after(async () => {
      await server?.stop();
      for (const r of receivers) await r.stop();
    });

    test('a 302 to a private address is not followed: each attempt is a failure, and after the last the delivery is failed', async () => {
      const inside = await receiver(); // 127.0.0.1: loopback, reachable here only through WEBHOOK_ALLOW_PRIVATE
      const redirecting = await receiver();
      redirecting.respond = (_req, res) => res.writeHead(302, { location: `${inside.url}/internal` }).end();
      const hook = await create({ url: redirecting.url, events: ['message.stored'], tuids: ['RD-1'] });
      await publishReadings(server, 'RD-1', 1);
      const failed = await until(async () => (await log(hook.id)).find((d) => d.status === 'failed'), 10_000, 'the failed delivery');
      // WEBHOOK_RETRY_SCHEDULE of the tests has three entries: three attempts, each a 302 not followed.
      assert.deepEqual(
        failed.attempts.map((a) => a.status_code),
        [302, 302, 302],
      );
      for (const attempt of failed.attempts) assert.match(attempt.error!, /redirect not followed \(302\)/);
      assert.equal(redirecting.received.length, 3);
      assert.equal(inside.received.length, 0, 'the redirect target got nothing');
      assert.equal((await endpoint(hook.id)).health.state, 'failing');
    });

    test('failing for WEBHOOK_DISABLE_AFTER_S without a success disables the endpoint; its deliveries wait; /metrics counts it all', async () => {
      const down = await receiver();
      down.respond = (_req, res) => res.writeHead(500).end('down');
      const healthy = await receiver();
      const hook = await create({ url: down.url, events: ['message.stored'], tuids: ['AD-1'] });
      await create({ url: healthy.url, events: ['message.stored'], tuids: ['AD-2'] });
      await publishReadings(server, 'AD-1', 1);
      const failing = await until(async () => {
        const data = await endpoint(hook.id);
        return data.health.state === 'failing' ? data : undefined;
      });
      assert.equal(failing.enabled, true, 'one failure does not disable');
      // Once the window (1 s here) has passed since the first failure, the next failure disables.
      const since = failing.health.failing_since! * 1000;
      await until(() => Date.now() - since > 2_100 || undefined, 5_000, 'the failure window');
      await publishReadings(server, 'AD-1', 1);
      await publishReadings(server, 'AD-2', 1);
      const disabled = await until(async () => {
        const data = await endpoint(hook.id);
        return data.enabled === false ? data : undefined;
      });
      assert.equal(disabled.health.state, 'disabled');
      assert.match(disabled.health.last_error!, /HTTP 500/);
      await healthy.waitFor(1);
      const attemptsBefore = down.received.length;
      await until(async () => (await log(hook.id)).find((d) => d.status === 'pending'), 5_000, 'a waiting delivery');
      // Every request the receiver saw is in the log by the time the endpoint reads disabled, the one that disabled it too.
      const logged = (await log(hook.id)).flatMap((d) => d.attempts);
      assert.equal(logged.length, down.received.length);
      assert.ok(logged.every((a) => a.status_code === 500));

      const text = await until(async () => {
        const scraped = await (await fetch(server.url('/metrics'))).text();
        return series(scraped, 'thingdesk_webhook_queue_depth{organization="acme"}') >= 1 ? scraped : undefined;
      });
      assert.ok(series(text, 'thingdesk_webhook_attempts_total{outcome="succeeded"}') >= 1);
      assert.ok(series(text, 'thingdesk_webhook_attempts_total{outcome="retry"}') >= 1);
      assert.ok(series(text, 'thingdesk_webhook_attempts_total{outcome="failed"}') >= 1);
      assert.ok(series(text, 'thingdesk_webhook_attempt_seconds_count') >= 3);
      assert.ok(series(text, 'thingdesk_webhook_oldest_pending_seconds{organization="acme"}') > 0);
      assert.equal(series(text, 'thingdesk_webhook_endpoints{state="disabled"}'), 1);
      assert.ok(series(text, 'thingdesk_webhook_endpoints{state="healthy"}') >= 1);
      // Disabled: nothing more is sent to it.
      assert.equal(down.received.length, attemptsBefore);
    });
  });
}
