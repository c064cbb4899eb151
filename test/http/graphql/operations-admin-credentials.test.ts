/**
 * GraphQL administration of credentials for Managers (SPEC sections 2 and 4): API clients and MQTT credentials.
 * Each created credential is proven by using it (a REST token, an MQTT connection), and each revocation by its
 * failing afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMqttCredential as addMqttCredential, createOrganization } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf } from '../../helpers/graphql-users.js';
import { closeMqttClients, connectMqtt } from '../../helpers/mqtt-clients.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { signInBootstrapManager } from './operations-admin-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const createApiClient = 'mutation C($name: String!) { createApiClient(name: $name) { clientId clientSecret } }';
const revokeApiClient = 'mutation V($clientId: String!) { revokeApiClient(clientId: $clientId) }';
const createMqttCredential =
  'mutation M($kind: MqttCredentialKind!, $username: String) { createMqttCredential(kind: $kind, username: $username) { username password kind } }';
const revokeMqttCredential = 'mutation X($username: String!) { revokeMqttCredential(username: $username) }';

for (const target of storeTargets) {
  describe(`GraphQL administration of API clients and MQTT credentials on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let manager: GraphqlClient;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      ({ manager } = await signInBootstrapManager(server));
    });
    after(() => server?.stop());

    test('createApiClient answers {clientId, clientSecret}; the secret gets a REST token; apiClients shows no secret', async () => {
      const created = dataOf(await manager.request(createApiClient, { name: 'Billing export' })).createApiClient;
      assert.deepEqual(Object.keys(created).sort(), ['clientId', 'clientSecret']);
      const rest = new RestClient(server, { client_id: created.clientId, client_secret: created.clientSecret });
      assert.equal((await rest.get('/things')).status, 200);
      const listed = await manager.request('{ apiClients { clientId name createdAt revoked } }');
      const entry = dataOf(listed).apiClients.find((c: { clientId: string }) => c.clientId === created.clientId);
      assert.deepEqual({ ...entry, createdAt: 0 }, { clientId: created.clientId, name: 'Billing export', createdAt: 0, revoked: false });
      assert.ok(!JSON.stringify(listed.body).includes(created.clientSecret));
      const fields = dataOf(await manager.request('{ __type(name: "ApiClient") { fields { name } } }')).__type.fields.map(
        (f: { name: string }) => f.name,
      );
      assert.deepEqual(fields.sort(), ['clientId', 'createdAt', 'name', 'revoked']);
      assertBadInput(await manager.request(createApiClient, { name: '   ' }), ['name']);
    });

    test('revokeApiClient answers true; the client gets no new token and its tokens stop working; unknown NOT_FOUND', async () => {
      const created = dataOf(await manager.request(createApiClient, { name: 'Short-lived' })).createApiClient;
      const credentials = { client_id: created.clientId, client_secret: created.clientSecret };
      const rest = new RestClient(server, credentials);
      assert.equal((await rest.get('/things')).status, 200);
      assert.deepEqual(dataOf(await manager.request(revokeApiClient, { clientId: created.clientId })), { revokeApiClient: true });
      assert.equal((await rest.get('/things')).status, 401, 'an issued token stops working at once');
      const fresh = await new RestClient(server).request('POST', '/auth/client-token', { body: credentials, auth: false });
      assert.equal(fresh.status, 401);
      const entry = dataOf(await manager.request('{ apiClients { clientId revoked } }')).apiClients.find(
        (c: { clientId: string }) => c.clientId === created.clientId,
      );
      assert.equal(entry.revoked, true);
      assertGraphqlError(
        await manager.request(revokeApiClient, { clientId: created.clientId }),
        'NOT_FOUND',
        `No active API client with id ${created.clientId}.`,
      );
      assertGraphqlError(
        await manager.request(revokeApiClient, { clientId: 'no-such-client' }),
        'NOT_FOUND',
        'No active API client with id no-such-client.',
      );
    });

    test('createMqttCredential answers {username, password, kind}; the credential connects with MQTT 3.1.1', async () => {
      const gateway = dataOf(await manager.request(createMqttCredential, { kind: 'GATEWAY' })).createMqttCredential;
      assert.deepEqual(Object.keys(gateway).sort(), ['kind', 'password', 'username']);
      assert.equal(gateway.kind, 'GATEWAY');
      const client = await connectMqtt(server.mqttUrl, { username: gateway.username, password: gateway.password });
      await client.publishAsync(
        `thingdesk/acme/up/GW-ADMIN`,
        JSON.stringify([{ tsmId: 1112, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'MQ-1', uptime: 1 }]),
        { qos: 1 },
      );
      await client.endAsync();
      assert.equal(
        dataOf(await manager.request('{ thing(tuid: "MQ-1") { gatewayTuid } }')).thing.gatewayTuid,
        'GW-ADMIN',
        'its uplink was stored for acme',
      );
      const named = dataOf(
        await manager.request(createMqttCredential, { kind: 'INTEGRATION', username: 'acme-integration-1' }),
      ).createMqttCredential;
      assert.equal(named.username, 'acme-integration-1');
      assert.equal(named.kind, 'INTEGRATION');
      await (await connectMqtt(server.mqttUrl, { username: named.username, password: named.password })).endAsync();
    });

    test('createMqttCredential: a taken username is CONFLICT, a bad one BAD_USER_INPUT; an unknown kind fails validation', async () => {
      await manager.request(createMqttCredential, { kind: 'GATEWAY', username: 'taken-name' });
      const taken =
        'The MQTT username taken-name is not available: usernames are unique across the platform. Choose another, or leave it out to get a generated one.';
      assertGraphqlError(await manager.request(createMqttCredential, { kind: 'INTEGRATION', username: 'taken-name' }), 'CONFLICT', taken);
      // Held by another organization: the very same answer, which names nobody (issue 12 item 15).
      const deps = { store: server.app.store, clock: server.app.clock };
      const other = await createOrganization(deps, { name: 'Elsewhere', id: 'elsewhere' });
      await addMqttCredential(deps, { organizationId: other.id, kind: 'gateway', username: 'elsewhere-name' });
      assertGraphqlError(
        await manager.request(createMqttCredential, { kind: 'GATEWAY', username: 'elsewhere-name' }),
        'CONFLICT',
        'The MQTT username elsewhere-name is not available: usernames are unique across the platform. Choose another, or leave it out to get a generated one.',
      );
      for (const username of ['bad name', 'a+b', '', 'x'.repeat(129)])
        assertBadInput(await manager.request(createMqttCredential, { kind: 'GATEWAY', username }), ['username']);
      assertGraphqlError(
        await manager.request(createMqttCredential, { kind: 'gateway' }),
        'BAD_USER_INPUT',
        /does not exist in "MqttCredentialKind" enum/,
      );
    });

    test('mqttCredentials lists the credentials without passwords; revokeMqttCredential ends connecting with it', async () => {
      const created = dataOf(await manager.request(createMqttCredential, { kind: 'GATEWAY', username: 'revoke-me' })).createMqttCredential;
      const listed = await manager.request('{ mqttCredentials { username kind createdAt revoked } }');
      const entry = dataOf(listed).mqttCredentials.find((c: { username: string }) => c.username === 'revoke-me');
      assert.deepEqual({ ...entry, createdAt: 0 }, { username: 'revoke-me', kind: 'GATEWAY', createdAt: 0, revoked: false });
      assert.ok(!JSON.stringify(listed.body).includes(created.password));
      const fields = dataOf(await manager.request('{ __type(name: "MqttCredential") { fields { name } } }')).__type.fields.map(
        (f: { name: string }) => f.name,
      );
      assert.deepEqual(fields.sort(), ['createdAt', 'kind', 'revoked', 'username']);
      assert.deepEqual(dataOf(await manager.request(revokeMqttCredential, { username: 'revoke-me' })), { revokeMqttCredential: true });
      await assert.rejects(connectMqtt(server.mqttUrl, { username: 'revoke-me', password: created.password }));
      assert.equal(
        dataOf(await manager.request('{ mqttCredentials { username revoked } }')).mqttCredentials.find(
          (c: { username: string }) => c.username === 'revoke-me',
        ).revoked,
        true,
      );
      assertGraphqlError(
        await manager.request(revokeMqttCredential, { username: 'revoke-me' }),
        'NOT_FOUND',
        'No active MQTT credential named revoke-me.',
      );
      assertGraphqlError(
        await manager.request(revokeMqttCredential, { username: 'no-such-user' }),
        'NOT_FOUND',
        'No active MQTT credential named no-such-user.',
      );
    });
  });
}
