/**
 * Role-dependent schemas (SPEC section 4) through the real server: introspection per role, and calls outside a
 * role's schema failing validation before anything runs. The access table itself is checked in access-table.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { mayCall } from '../../../src/http/graphql/access.js';
import type { Role } from '../../../src/domain/identity/types.js';
import { cleanupStores } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';
import { fullRoots, operationTypes, roles, sorted, specRoots, tableRoots } from './role-schemas-helpers.js';

after(cleanupStores);
after(closeMqttClients);

/** Types only a Manager's operations use: none may show in another role's introspection. */
const managerOnlyTypes = [
  'ApiClient',
  'ApiClientCredentials',
  'MqttCredential',
  'MqttCredentialSecret',
  'MqttCredentialKind',
  'SendCommandsResult',
];
/** Types only the platform's operators see (PLATFORM_OPERATOR_ORGANIZATIONS): no role of an organization. */
const platformOperatorTypes = ['Deployment', 'PlatformInstance'];
/** Types only the field-service mutations use. */
const fieldServiceTypes = ['InstallationResult', 'GroupAssignment', 'AssignmentProblem'];
/** Types only sign-in uses: a signed-in caller's schema does not need them. */
const signInTypes = ['LoginInput', 'LoginResult'];

const introspection =
  '{ __schema { queryType { fields { name } } mutationType { fields { name } } subscriptionType { fields { name } } types { name } } }';

describe('role schemas through the server', () => {
  let server: TestApp;
  const clients = {} as Record<Role, GraphqlClient>;

  before(async () => {
    server = await startTestApp();
    for (const role of roles) clients[role] = (await signInAs(server, role)).client;
    await publishUplinks(server, [{ tsmId: 1112, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'ROLE-1', uptime: 5 }]);
  });
  after(() => server?.stop());

  for (const role of roles) {
    test(`introspection as ${role} lists exactly the ${role}'s operations and none of the types it may not use`, async () => {
      const schema = dataOf(await clients[role].request(introspection)).__schema;
      const names = (type: { fields: { name: string }[] } | null) => sorted(type?.fields.map((field) => field.name) ?? []);
      const seen = { Query: names(schema.queryType), Mutation: names(schema.mutationType), Subscription: names(schema.subscriptionType) };
      assert.deepEqual(seen, tableRoots(role));
      assert.deepEqual(seen, specRoots[role]);
      const types = new Set((schema.types as { name: string }[]).map((type) => type.name));
      const forbidden = [
        ...signInTypes,
        ...platformOperatorTypes,
        ...(role === 'Manager' ? [] : managerOnlyTypes),
        ...(role === 'Viewer' ? fieldServiceTypes : []),
      ];
      for (const name of forbidden) assert.ok(!types.has(name), `${role} sees type ${name}`);
      const allowed = [
        'Thing',
        'Group',
        'User',
        'JSON',
        ...(role === 'Viewer' ? [] : fieldServiceTypes),
        ...(role === 'Manager' ? managerOnlyTypes : []),
      ];
      for (const name of allowed) assert.ok(types.has(name), `${role} misses type ${name}`);
    });
  }

  test('__type of a Manager-only type is null for a Viewer and an Installer, and known to a Manager', async () => {
    const query = '{ __type(name: "ApiClient") { name } }';
    assert.equal(dataOf(await clients.Viewer.request(query)).__type, null);
    assert.equal(dataOf(await clients.Installer.request(query)).__type, null);
    assert.deepEqual(dataOf(await clients.Manager.request(query)).__type, { name: 'ApiClient' });
  });

  for (const role of roles) {
    test(`as ${role}, every operation outside the role's schema fails validation as an unknown field`, async () => {
      for (const type of operationTypes) {
        const keyword = type === 'Query' ? 'query' : type === 'Mutation' ? 'mutation' : 'subscription';
        for (const field of fullRoots[type].filter((name) => !mayCall(role, type, name))) {
          const response = await clients[role].request(`${keyword} { ${field} }`);
          const error = assertGraphqlError(response, 'BAD_USER_INPUT', new RegExp(`^Cannot query field "${field}" on type "${type}"\\.`));
          assert.equal(response.body.data, undefined, `${type}.${field} must not run`);
          // Suggestions come from the caller's own schema only.
          for (const hidden of fullRoots[type].filter((name) => !mayCall(role, type, name))) {
            assert.ok(!error.message.includes(`"${hidden}"`) || hidden === field, `${role}: ${error.message} names ${hidden}`);
          }
        }
      }
    });
  }

  test('a Viewer cannot set an installation status or assign a group: refused before running, nothing changes', async () => {
    const setStatus = await clients.Viewer.request('mutation { setInstallationStatus(tuid: "ROLE-1", status: "installed") { tuid } }');
    assertGraphqlError(setStatus, 'BAD_USER_INPUT', /^Cannot query field "setInstallationStatus" on type "Mutation"/);
    const assign = await clients.Viewer.request('mutation { assignThingToGroup(tuid: "ROLE-1", groupId: "unassigned") { tuid } }');
    assertGraphqlError(assign, 'BAD_USER_INPUT', /^Cannot query field "assignThingToGroup" on type "Mutation"/);
    assert.equal(dataOf(await clients.Viewer.request('{ thing(tuid: "ROLE-1") { installationStatus } }')).thing.installationStatus, 'new');
    // The Installer may do both.
    const installed = await clients.Installer.request(
      'mutation { setInstallationStatus(tuid: "ROLE-1", status: "installed") { installationStatus } }',
    );
    assert.equal(dataOf(installed).setInstallationStatus.installationStatus, 'installed');
  });

  test('an Installer cannot send commands or create users: refused before running, nothing is stored', async () => {
    const send = await clients.Installer.request(
      'mutation { sendCommands(tuid: "ROLE-1", commands: [{tsmId: 1500, tsmEv: 30, transactionId: 1, measurementInterval: 60, reportInterval: 300}]) { responsible } }',
    );
    assertGraphqlError(send, 'BAD_USER_INPUT', /^Cannot query field "sendCommands" on type "Mutation"/);
    const createUser = await clients.Installer.request(
      'mutation { createUser(email: "sneaky@acme.test", password: "sneaky-password", role: MANAGER) { id } }',
    );
    assertGraphqlError(createUser, 'BAD_USER_INPUT', /^Cannot query field "createUser" on type "Mutation"/);
    const users = await clients.Installer.request('{ users { email } }');
    assertGraphqlError(users, 'BAD_USER_INPUT', /^Cannot query field "users" on type "Query"/);
    assert.deepEqual((await new RestClient(server).get('/things/ROLE-1/commands')).body, { data: [] });
    const emails = dataOf(await clients.Manager.request('{ users { email } }')).users.map((user: { email: string }) => user.email);
    assert.ok(!emails.includes('sneaky@acme.test'));
  });

  test('a disallowed field next to allowed ones refuses the whole operation', async () => {
    const response = await clients.Viewer.request('{ me { email } users { email } }');
    assertGraphqlError(response, 'BAD_USER_INPUT', /^Cannot query field "users" on type "Query"/);
    assert.equal(response.body.data, undefined);
  });

  test('not signed in: introspection is refused with UNAUTHENTICATED, and so is any operation but sign-in', async () => {
    const anonymous = new GraphqlClient(server);
    assertGraphqlError(await anonymous.request(introspection, undefined, { token: null }), 'UNAUTHENTICATED');
    assertGraphqlError(await anonymous.request('{ me { email } }', undefined, { token: null }), 'UNAUTHENTICATED');
  });
});
