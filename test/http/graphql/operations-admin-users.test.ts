/**
 * GraphQL administration of users for Managers (SPEC sections 2 and 4): creating them, listing them, changing their
 * roles and deleting them. Each change is proven by signing in (or failing to) afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { closeMqttClients, eventually } from '../../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';
import { signInBootstrapManager } from './operations-admin-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const createUser =
  'mutation U($email: String!, $password: String!, $role: Role!) { createUser(email: $email, password: $password, role: $role) { id email role organizationId } }';
const setUserRole = 'mutation R($userId: ID!, $role: Role!) { setUserRole(userId: $userId, role: $role) { id email role organizationId } }';
const deleteUser = 'mutation D($userId: ID!) { deleteUser(userId: $userId) }';

for (const target of storeTargets) {
  describe(`GraphQL administration of users on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let manager: GraphqlClient;
    let managerId: string;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      ({ manager, managerId } = await signInBootstrapManager(server));
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
  });
}

function errorCode(response: { body: { errors?: { extensions?: Record<string, unknown> }[] } }): unknown {
  return response.body.errors?.[0]?.extensions?.code;
}
