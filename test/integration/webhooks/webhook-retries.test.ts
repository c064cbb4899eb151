/**
 * Webhooks (SPEC section 11) failing and retried, end to end: real server, real loopback receivers. A failed attempt
 * retried with the same webhook-id, replay, Retry-After, 410 disabling the endpoint, a hung endpoint.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { RestClient } from '../../helpers/rest-client.js';
import type { TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { deliveryTools, publishReadings, Receiver, startWebhookApp, until } from './webhook-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`webhook retries on ${target.name}`, { skip: target.skip }, () => {
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

    test('a failed attempt is retried with the same webhook-id; 3xx is a failure and never followed', async () => {
      const r = await receiver();
      r.respond = (_req, res, index) => {
        if (index === 0) {
          res.writeHead(302, { location: `${r.url}/elsewhere` }).end();
        } else if (index === 1) res.writeHead(500).end('boom');
        else res.end('ok');
      };
      const hook = await create({ url: r.url, events: ['message.stored'], tuids: ['RT-1'] });
      await publishReadings(server, 'RT-1', 1);
      const got = await r.waitFor(3);
      assert.equal(new Set(got.map((g) => g.headers['webhook-id'])).size, 1);
      assert.ok(
        got.every((g) => g.path === '/hook'),
        'the redirect was not followed',
      );
      const [delivery] = await until(async () => {
        const entries = await log(hook.id);
        return entries[0]?.status === 'succeeded' ? entries : undefined;
      });
      assert.deepEqual(
        delivery!.attempts.map((a) => a.status_code),
        [302, 500, 200],
      );
      assert.match(delivery!.attempts[0]!.error!, /redirect not followed/);
    });

    test('after the last retry the delivery is failed; replay sends it again with the same webhook-id', async () => {
      const r = await receiver();
      r.respond = (_req, res) => res.writeHead(500).end('down');
      const hook = await create({ url: r.url, events: ['message.stored'], tuids: ['RP-1'] });
      await publishReadings(server, 'RP-1', 1);
      await r.waitFor(3);
      const [failed] = await until(async () => {
        const entries = await log(hook.id);
        return entries[0]?.status === 'failed' ? entries : undefined;
      });
      assert.equal(failed!.attempts.length, 3);
      r.respond = (_req, res) => res.end('ok');
      const replay = await rest.post(`/webhooks/${hook.id}/deliveries/${failed!.id}/replay`, {});
      assert.equal(replay.status, 200, replay.text);
      await r.waitFor(4);
      assert.equal(r.received[3]!.headers['webhook-id'], failed!.id);
      // Healthy again once the success is noted (just after the receiver answered).
      await until(async () => (await rest.get(`/webhooks/${hook.id}`)).body.data.health.state === 'healthy' || undefined);
      // Replay since: nothing failed is left.
      const since = await rest.post(`/webhooks/${hook.id}/replay`, { since: 0 });
      assert.equal(since.body.data.replayed, 0);
    });

    test('Retry-After on 503 and 429 is waited for (capped by the longest delay); 410 disables the endpoint, re-enabling sends what waited', async () => {
      const r = await receiver();
      r.respond = (_req, res, index) => {
        if (index === 0) res.writeHead(503, { 'retry-after': '0' }).end();
        else if (index === 1) res.writeHead(429, { 'retry-after': '3600' }).end();
        else if (index === 2) res.writeHead(410).end();
        else res.end('ok');
      };
      const hook = await create({ url: r.url, events: ['message.stored'], tuids: ['RA-1'] });
      await publishReadings(server, 'RA-1', 1);
      const got = await r.waitFor(3);
      // Retry-After: 0 is sooner than the schedule's 200 ms; 3600 s is capped at the schedule's longest, 200 ms.
      assert.ok(got[1]!.at - got[0]!.at < 170, `waited ${got[1]!.at - got[0]!.at} ms after Retry-After: 0`);
      assert.ok(
        got[2]!.at - got[1]!.at >= 190 && got[2]!.at - got[1]!.at < 1500,
        `waited ${got[2]!.at - got[1]!.at} ms after Retry-After: 3600`,
      );
      const disabled = await until(async () => {
        const data = (await rest.get(`/webhooks/${hook.id}`)).body.data;
        return data.enabled === false ? data : undefined;
      });
      assert.equal(disabled.health.state, 'disabled');
      const enabled = await rest.request('PATCH', `/webhooks/${hook.id}`, { body: { enabled: true } });
      assert.equal(enabled.status, 200, enabled.text);
      await r.waitFor(4);
      assert.equal(r.received[3]!.headers['webhook-id'], got[0]!.headers['webhook-id']);
    });

    test('an attempt the receiver never answers ends at WEBHOOK_TIMEOUT_MS, logged as a timeout, and is retried', async () => {
      const r = await receiver();
      // The first request is never answered; the retry is.
      r.respond = (_req, res, index) => {
        if (index > 0) res.end('ok');
      };
      const hook = await create({ url: r.url, events: ['message.stored'], tuids: ['TO-1'] });
      await publishReadings(server, 'TO-1', 1);
      const [delivery] = await until(
        async () => {
          const entries = await log(hook.id);
          return entries[0]?.status === 'succeeded' ? entries : undefined;
        },
        15_000,
        'the delivery retried after its timeout',
      );
      // WEBHOOK_TIMEOUT_MS of the tests is 2000.
      assert.deepEqual(
        delivery!.attempts.map((a) => a.status_code),
        [null, 200],
      );
      assert.equal(delivery!.attempts[0]!.error, 'timeout after 2000 ms');
      const got = await r.waitFor(2);
      assert.equal(got[0]!.headers['webhook-id'], got[1]!.headers['webhook-id']);
    });

    test('a hung endpoint delays nobody else', async () => {
      const hung = await receiver();
      hung.respond = () => undefined; // never answers
      const healthy = await receiver();
      await create({ url: hung.url, events: ['message.stored'], tuids: ['HG-1'] });
      await create({ url: healthy.url, events: ['message.stored'], tuids: ['HG-1'] });
      const started = Date.now();
      for (let i = 0; i < 5; i++) await publishReadings(server, 'HG-1', 2);
      await healthy.waitFor(10, 5000);
      assert.ok(Date.now() - started < 1800, `the healthy endpoint was not held by the hung one (${Date.now() - started} ms)`);
      assert.ok(hung.received.length <= 2, 'the hung endpoint holds at most WEBHOOK_CONCURRENCY requests');
    });

    test('a hung endpoint delays nobody else on the same host either (another path of one receiver)', async () => {
      // One receiver, two paths: the endpoints share host and port but not their connections.
      const shared = await receiver();
      shared.respond = (request, response) => {
        if (request.path !== '/hung') response.end('ok');
      };
      const origin = new URL(shared.url).origin;
      await create({ url: `${origin}/hung`, events: ['message.stored'], tuids: ['HS-1'] });
      await create({ url: `${origin}/fine`, events: ['message.stored'], tuids: ['HS-1'] });
      const started = Date.now();
      for (let i = 0; i < 5; i++) await publishReadings(server, 'HS-1', 2);
      await until(
        () => (shared.received.filter((r) => r.path === '/fine').length >= 10 ? true : undefined),
        5000,
        'the healthy path got all ten',
      );
      assert.ok(Date.now() - started < 1800, `the healthy path was not held by the hung one (${Date.now() - started} ms)`);
      assert.ok(shared.received.filter((r) => r.path === '/hung').length <= 2, 'the hung path holds at most WEBHOOK_CONCURRENCY requests');
    });
  });
}
