/** Webhook safety (SPEC section 11): refused addresses, secrets in no log line, no endpoint for a Viewer or another organization. */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import { createLogger } from '../../../src/observability/logger.js';
import { listWebhooks } from '../../../src/domain/webhooks/webhook-service.js';
import { cleanupStores } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { Receiver, publishReadings, verify } from './webhook-helpers.js';

after(cleanupStores);
after(closeMqttClients);

describe('webhook safety', () => {
  let server: TestApp;
  let rest: RestClient;
  let receiver: Receiver;
  const lines: string[] = [];

  before(async () => {
    receiver = await new Receiver().start();
    const capture = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    // No WEBHOOK_ALLOW_PRIVATE here but the receiver's own address, which is all a LAN receiver needs.
    server = await startTestApp(
      { WEBHOOK_RETRY_SCHEDULE: '0,0.1', WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', LOG_LEVEL: 'trace' },
      { logger: createLogger('trace', capture) },
    );
    rest = new RestClient(server);
  });
  after(async () => {
    await server?.stop();
    await receiver?.stop();
  });

  test('a literal refused address is a 400 naming url; an allow-listed LAN address is accepted', async () => {
    for (const url of [
      'http://[::1]/',
      'http://0.0.0.0/',
      'http://[::]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:127.0.0.2]/',
      'http://2130706434/', // 127.0.0.2, outside the allow list
      'http://0177.0.0.2/',
      'http://10.0.0.8/',
      'http://100.64.1.1/',
      'http://192.168.1.5/',
      'http://[fd00::5]/',
      'ftp://example.com/',
      'not a url',
    ]) {
      const response = await rest.post('/webhooks', { url, events: ['message.stored'] });
      assert.equal(response.status, 400, `${url}: ${response.text}`);
      assert.deepEqual(
        response.body.errors.map((e: { field: string }) => e.field),
        ['url'],
        url,
      );
    }
    const lan = await rest.post('/webhooks', { url: receiver.url, events: ['alert.opened'] });
    assert.equal(lan.status, 200, lan.text);
    const sent = await rest.post(`/webhooks/${lan.body.data.id}/test`, {});
    assert.equal(sent.body.data.status_code, 200);
  });

  test('a name resolving to a refused address fails the attempt with `address refused`', async () => {
    const created = await rest.post('/webhooks', { url: 'http://localhost.:9/hook', events: ['alert.opened'] });
    assert.equal(created.status, 200, created.text);
    const sent = await rest.post(`/webhooks/${created.body.data.id}/test`, {});
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.data.status_code, null);
    assert.match(sent.body.data.error, /^(address refused|cannot resolve)/);
  });

  test('secrets appear in no log line at any level', async () => {
    const created = await rest.post('/webhooks', { url: receiver.url, events: ['message.stored'], tuids: ['LOG-1'] });
    const rotated = await rest.post(`/webhooks/${created.body.data.id}/rotate-secret`, {});
    await rest.post(`/webhooks/${created.body.data.id}/test`, {});
    const before = receiver.received.length;
    await publishReadings(server, 'LOG-1', 1);
    const got = await receiver.waitFor(before + 1);
    verify(rotated.body.data.secret, got.at(-1)!);
    await rest.request('PATCH', `/webhooks/${created.body.data.id}`, { body: { enabled: false } });
    await rest.delete(`/webhooks/${created.body.data.id}`);
    const text = lines.join('');
    assert.ok(lines.length > 10, 'the logs were captured');
    for (const secret of [created.body.data.secret as string, rotated.body.data.secret as string]) {
      assert.ok(!text.includes(secret.slice('whsec_'.length, 30)), 'a secret is in the log');
    }
  });

  test('a Viewer sees no webhook operation; another organization sees no endpoint', async () => {
    const created = await rest.post('/webhooks', { url: receiver.url, events: ['message.stored'] });
    const id = created.body.data.id as string;
    const deps = { store: server.app.store, clock: server.app.clock };
    await createOrganization(deps, { name: 'Other', id: 'other' });
    const { clientSecret } = await createApiClient(deps, { organizationId: 'other', name: 'other', clientId: 'other-client' });
    const other = new RestClient(server, { client_id: 'other-client', client_secret: clientSecret });
    assert.deepEqual((await other.get('/webhooks')).body.data, []);
    assert.equal((await other.get(`/webhooks/${id}`)).status, 404);
    assert.equal((await other.get(`/webhooks/${id}/deliveries`)).status, 404);
    assert.equal((await other.delete(`/webhooks/${id}`)).status, 404);
    const viewer = {
      kind: 'user',
      organizationId: 'acme',
      userId: 'u',
      email: 'v@acme.test',
      role: 'Viewer',
      sessionId: 's',
      responsible: 'v',
    } as const;
    await assert.rejects(listWebhooks(deps, viewer), { code: 'FORBIDDEN' });
    const installer = { ...viewer, role: 'Installer' } as const;
    await assert.rejects(listWebhooks(deps, installer), { code: 'FORBIDDEN' });
    assert.equal((await listWebhooks(deps, { ...viewer, role: 'Manager' })).length >= 1, true);
  });
});
