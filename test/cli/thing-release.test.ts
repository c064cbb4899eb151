import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiClient, createMqttCredential, createOrganization } from '../../src/domain/identity/identity-service.js';
import { cleanupStores } from '../helpers/databases.js';
import { RestClient } from '../helpers/rest-client.js';
import { runThingdesk } from '../helpers/run-cli.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, connectMqtt } from '../helpers/mqtt-clients.js';

after(cleanupStores);
after(closeMqttClients);

describe('a wrong TUID claim released by the operator (issue 12 item 15)', () => {
  let server: TestApp;
  let acme: RestClient;
  let rival: RestClient;
  before(async () => {
    server = await startTestApp();
    const deps = { store: server.app.store, clock: server.app.clock };
    await createOrganization(deps, { name: 'Rival', id: 'rival' });
    await createMqttCredential(deps, {
      organizationId: 'rival',
      kind: 'gateway',
      username: 'rival-gateway',
      password: 'rival-gateway-password',
    });
    const client = await createApiClient(deps, { organizationId: 'rival', name: 'rival' });
    acme = new RestClient(server);
    rival = new RestClient(server, { client_id: client.client.clientId, client_secret: client.clientSecret });
  });
  after(() => server?.stop());

  async function publishAs(organizationId: string, username: string, password: string, ts: number): Promise<void> {
    const gateway = await connectMqtt(server.mqttUrl, { username, password });
    await gateway.publishAsync(
      `thingdesk/${organizationId}/up/GW-${organizationId}`,
      JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: ts, tsmTuid: 'CLAIMED-1', batl: 80 }]),
      { qos: 1 },
    );
    await gateway.endAsync();
  }

  test('the first organization holds the TUID; after `thingdesk thing release` the next uplink claims it anew', async () => {
    await publishAs('acme', 'acme-gateway', 'acme-gateway-password', 1_790_000_000);
    await publishAs('rival', 'rival-gateway', 'rival-gateway-password', 1_790_000_001);
    assert.equal((await acme.get('/things/CLAIMED-1')).status, 200);
    assert.equal((await rival.get('/things/CLAIMED-1')).status, 404, "the rival's uplink was dead-lettered");

    const env = { DATABASE_URL: server.config.databaseUrl };
    const wrongOrg = await runThingdesk(['thing', 'release', '--org', 'rival', '--tuid', 'CLAIMED-1'], env);
    assert.equal(wrongOrg.code, 1, wrongOrg.stderr);
    assert.match(wrongOrg.stderr, /Organization rival holds no thing CLAIMED-1/);
    const released = await runThingdesk(['thing', 'release', '--org', 'acme', '--tuid', 'CLAIMED-1', '--json'], env);
    assert.equal(released.code, 0, released.stderr);
    assert.deepEqual(JSON.parse(released.stdout), { tuid: 'CLAIMED-1', organizationId: 'acme' });

    assert.equal((await acme.get('/things/CLAIMED-1')).status, 404);
    assert.equal((await acme.get('/things/CLAIMED-1/messages?limit=10')).status, 404);
    await publishAs('rival', 'rival-gateway', 'rival-gateway-password', 1_790_000_002);
    const claimed = await rival.get('/things/CLAIMED-1');
    assert.equal(claimed.status, 200);
  });
});
