/** Webhooks with two instances on one PostgreSQL store (SPEC section 11): each attempt runs on one instance at a time. */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';
import { Receiver, until, webhookTestEnv } from './webhook-helpers.js';

after(cleanupStores);
after(closeMqttClients);

test('two instances: every delivery arrives, no attempt runs twice at the same time', { skip: postgresSkipReason }, async () => {
  const url = await createPostgresUrl();
  const servers: TestApp[] = [];
  const receiver = await new Receiver().start();
  const inFlight = new Set<string>();
  let overlaps = 0;
  const seen = new Map<string, number>();
  receiver.respond = (request, response) => {
    const id = String(request.headers['webhook-id']);
    if (inFlight.has(id)) overlaps += 1;
    inFlight.add(id);
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    // Each delivery fails once, so retries are claimed by whichever instance is free.
    setTimeout(() => {
      inFlight.delete(id);
      response.writeHead(n === 1 ? 500 : 200).end();
    }, 15);
  };
  try {
    for (let i = 0; i < 2; i++) servers.push(await startTestApp({ ...webhookTestEnv, WEBHOOK_CONCURRENCY: '4', DATABASE_URL: url }));
    const rest = new RestClient(servers[0]!);
    const created = await rest.post('/webhooks', { url: receiver.url, events: ['message.stored'] });
    assert.equal(created.status, 200, created.text);
    // Both views know the endpoint (the second through the cluster events) before the messages come.
    await until(() => servers[1]!.app.store.webhooks.listAllEndpoints().then((e) => e.length === 1 || undefined));
    const messages = Array.from({ length: 120 }, (_, i) => ({
      tsmId: 12100,
      tsmEv: 10,
      tsmTs: 1_700_000_000 + i,
      tsmTuid: `CL-${i % 6}`,
      temp: 1,
    }));
    await publishUplinks(servers[0]!, messages.slice(0, 60));
    await publishUplinks(servers[1]!, messages.slice(60));
    await until(() => [...seen.values()].filter((n) => n >= 2).length >= 120 || undefined, 20_000, 'every delivery retried and delivered');
    assert.equal(overlaps, 0, 'an attempt ran twice at the same time');
    assert.equal(seen.size, 120);
    assert.ok(
      [...seen.values()].every((n) => n === 2),
      'each delivery was attempted exactly twice',
    );
  } finally {
    for (const server of servers) await server.stop();
    await receiver.stop();
  }
});
