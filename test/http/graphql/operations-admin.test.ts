/**
 * GraphQL administration for Managers (SPEC sections 2 and 4): users and their roles, API clients, MQTT credentials.
 * Each created credential is proven by using it (sign-in, a REST token, an MQTT connection), and each revocation
 * by its failing afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMqttCredential as addMqttCredential, createOrganization } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { closeMqttClients, connectMqtt, eventually } from '../../helpers/mqtt-clients.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);
after(closeMqttClients);

const createUser =
  'mutation U($email: String!, $password: String!, $role: Role!) { createUser(email: $email, password: $password, role: $role) { id email role organizationId } }';
const setUserRole = 'mutation R($userId: ID!, $role: Role!) { setUserRole(userId: $userId, role: $role) { id email role organizationId } }';
const deleteUser = 'mutation D($userId: ID!) { deleteUser(userId: $userId) }';
const createApiClient = 'mutation C($name: String!) { createApiClient(name: $name) { clientId clientSecret } }';
const revokeApiClient = 'mutation V($clientId: String!) { revokeApiClient(clientId: $clientId) }';
const createMqttCredential =
  'mutation M($kind: MqttCredentialKind!, $username: String) { createMqttCredential(kind: $kind, username: $username) { username password kind } }';
const revokeMqttCredential = 'mutation X($username: String!) { revokeMqttCredential(username: $username) }';

for (const target of storeTargets) {
  describe(`GraphQL administration on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let manager: GraphqlClient;
    let managerId: string;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      manager = new GraphqlClient(server);
      await manager.login();
      managerId = dataOf(await manager.request('{ me { id } }')).me.id;
    });
    after(() => server?.stop());

    test('createUser answers the User; the user signs in with that role', async () => {
      const created = dataOf(
        await manager.request(createUser, { email: 'new.viewer@acme.test', password: 'viewer-password', role: 'VIEWER' }),
      ).createUser;
      assert.deepEqual({ ...created, id: 'x' }, { id: 'x', email: 'new.viewer@acme.test', role: 'VIEWER', organizationId: 'acme' });
      assert.equal(typeof created.id, 'string');
      const client = new GraphqlClient(server);
      await client.login({ email: 'new.viewer@acme.test', password: 'viewer-password' });
      assert.deepEqual(dataOf(await client.request('{ me { id role } }')).me, { id: created.id, role: 'VIEWER' });
    });

    test('createUser: a taken e-mail (in any letter case) is CONFLICT; a bad e-mail or short password BAD_USER_INPUT', async () => {
      await manager.request(createUser, { email: 'dup@acme.test', password: 'dup-password', role: 'INSTALLER' });
      assertGraphqlError(
        await manager.request(createUser, { email: 'DUP@acme.test', password: 'dup-password', role: 'VIEWER' }),
        'CONFLICT',
        'A user with e-mail DUP@acme.test already exists in this organization.',
      );
      assertBadInput(await manager.request(createUser, { email: 'not-an-address', password: 'long-enough', role: 'VIEWER' }), ['email']);
      assertBadInput(await manager.request(createUser, { email: 'short@acme.test', password: 'short', role: 'VIEWER' }), ['password']);
      assertBadInput(await manager.request(createUser, { email: 'two words@acme', password: '', role: 'VIEWER' }), ['email', 'password']);
      assertGraphqlError(
        await manager.request(createUser, { email: 'role@acme.test', password: 'long-enough', role: 'OWNER' }),
        'BAD_USER_INPUT',
        /Value "OWNER" does not exist in "Role" enum/,
      );
      const emails = dataOf(await manager.request('{ users { email } }')).users.map((u: { email: string }) => u.email);
      for (const email of ['short@acme.test', 'role@acme.test', 'not-an-address'])
        assert.ok(!emails.includes(email), `${email} was not created`);
    });

    test("users lists the organization's users by e-mail, with no secret fields in the User type", async () => {
      const users = dataOf(await manager.request('{ users { id email role organizationId } }')).users;
      const emails = users.map((u: { email: string }) => u.email);
      assert.deepEqual(emails, [...emails].sort());
      assert.ok(
        users.some(
          (u: { id: string; email: string; role: string }) =>
            u.id === managerId && u.email === testBootstrap.BOOTSTRAP_EMAIL && u.role === 'MANAGER',
        ),
      );
      const fields = dataOf(await manager.request('{ __type(name: "User") { fields { name } } }')).__type.fields.map(
        (f: { name: string }) => f.name,
      );
      assert.deepEqual(fields.sort(), ['email', 'id', 'organizationId', 'role']);
    });

    test('setUserRole answers the User with the new role, which the next sign-in gets; unknown NOT_FOUND', async () => {
      const user = await signInAs(server, 'Viewer');
      assert.deepEqual(dataOf(await manager.request(setUserRole, { userId: user.userId, role: 'INSTALLER' })).setUserRole, {
        id: user.userId,
        email: user.email,
        role: 'INSTALLER',
        organizationId: 'acme',
      });
      const again = new GraphqlClient(server);
      await again.login({ email: user.email, password: user.password });
      assert.equal(dataOf(await again.request('{ me { role } }')).me.role, 'INSTALLER');
      assert.ok(
        dataOf(await again.request('mutation { setInstallationStatus(tuid: "ROLE-X", status: "installed") { tuid } }')),
        "the new role's operations are there",
      );
      assertGraphqlError(
        await manager.request(setUserRole, { userId: 'no-such-user', role: 'VIEWER' }),
        'NOT_FOUND',
        'No user no-such-user.',
      );
      assertGraphqlError(
        await manager.request('mutation { setUserRole(userId: "x", role: ADMIN) { id } }'),
        'BAD_USER_INPUT',
        /Value "ADMIN" does not exist in "Role" enum/,
      );
    });

    test("a demoted Manager loses the Manager's operations at once: the old token stops working, not at its expiry", async () => {
      const demoted = await signInAs(server, 'Manager');
      assert.equal(dataOf(await demoted.client.request('{ users { id } }')).users.length > 0, true);
      assert.equal(dataOf(await manager.request(setUserRole, { userId: demoted.userId, role: 'VIEWER' })).setUserRole.role, 'VIEWER');
      const stale = await demoted.client.request(
        'mutation { createUser(email: "backdoor@acme.test", password: "backdoor-password", role: MANAGER) { id } }',
      );
      assert.equal(errorCode(stale), 'UNAUTHENTICATED', JSON.stringify(stale.body));
      const emails = dataOf(await manager.request('{ users { email } }')).users.map((u: { email: string }) => u.email);
      assert.ok(!emails.includes('backdoor@acme.test'));
      const again = new GraphqlClient(server);
      await again.login({ email: demoted.email, password: demoted.password });
      assert.equal(dataOf(await again.request('{ me { role } }')).me.role, 'VIEWER');
      assert.equal(errorCode(await again.request('{ users { id } }')), 'BAD_USER_INPUT', "users is outside a Viewer's schema");
    });

    test('a Manager cannot demote or delete themselves: CONFLICT, nothing changes', async () => {
      assertGraphqlError(
        await manager.request(setUserRole, { userId: managerId, role: 'VIEWER' }),
        'CONFLICT',
        'You cannot change your own role; ask another Manager.',
      );
      assertGraphqlError(
        await manager.request(deleteUser, { userId: managerId }),
        'CONFLICT',
        'You cannot delete yourself; ask another Manager.',
      );
      assert.equal(dataOf(await manager.request('{ me { role } }')).me.role, 'MANAGER');
      assert.equal(
        dataOf(await manager.request(setUserRole, { userId: managerId, role: 'MANAGER' })).setUserRole.role,
        'MANAGER',
        'staying a Manager is fine',
      );
    });

    test("deleteUser answers true; the user's access token stops working within a second and it cannot sign in", async () => {
      const doomed = await signInAs(server, 'Installer');
      assert.equal(dataOf(await doomed.client.request('{ me { email } }')).me.email, doomed.email);
      assert.deepEqual(dataOf(await manager.request(deleteUser, { userId: doomed.userId })), { deleteUser: true });
      await eventually(
        async () => (errorCode(await doomed.client.request('{ me { email } }')) === 'UNAUTHENTICATED' ? true : undefined),
        1000,
        'the token to be refused',
      );
      const refresh = await doomed.client.request(
        'mutation R($input: RefreshTokenInput!) { refreshToken(refreshTokenInput: $input) { accessToken } }',
        { input: { organizationId: 'acme', refreshToken: doomed.client.refreshToken } },
        { token: null },
      );
      assert.equal(errorCode(refresh), 'UNAUTHENTICATED');
      assert.equal(errorCode(await new GraphqlClient(server).login({ email: doomed.email, password: doomed.password })), 'UNAUTHENTICATED');
      assertGraphqlError(await manager.request(deleteUser, { userId: doomed.userId }), 'NOT_FOUND', `No user ${doomed.userId}.`);
      const emails = dataOf(await manager.request('{ users { email } }')).users.map((u: { email: string }) => u.email);
      assert.ok(!emails.includes(doomed.email));
    });

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

function errorCode(response: { body: { errors?: { extensions?: Record<string, unknown> }[] } }): unknown {
  return response.body.errors?.[0]?.extensions?.code;
}
