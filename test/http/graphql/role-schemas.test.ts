/**
 * Role-dependent schemas (SPEC section 4): the access table against the SPEC's lists, introspection per role through
 * the real server, and calls outside a role's schema failing validation before anything runs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { audiences, mayCall, operationAccess, type Audience } from '../../../src/http/graphql/access.js';
import { allResolvers } from '../../../src/http/graphql/resolvers/all-resolvers.js';
import { operationsWithoutAccessRule } from '../../../src/http/graphql/role-schemas.js';
import { typeDefs } from '../../../src/http/graphql/type-defs.js';
import type { Role } from '../../../src/domain/identity/types.js';
import { cleanupStores } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

type OperationType = keyof typeof operationAccess;
const operationTypes: OperationType[] = ['Query', 'Mutation', 'Subscription'];
const roles: Role[] = ['Viewer', 'Installer', 'Manager'];

// SPEC section 4, written out once by hand so that the table itself is checked against the SPEC.
const specViewerQueries = [
  'me',
  'organization',
  'thing',
  'things',
  'messages',
  'alerts',
  'groups',
  'group',
  'commands',
  'installations',
  'catalog',
];
/** Read-only queries beyond the SPEC's list ("add more freely"), for every signed-in role. */
// SPEC section 9: series and groupSeries for every role; section 10: fleetHealth for every role.
const readOnlyExtras = ['alertingThings', 'alertCount', 'series', 'groupSeries', 'fleetHealth'];
const specManagerQueries = ['users', 'apiClients', 'mqttCredentials'];
const specInstallerMutations = ['setInstallationStatus', 'assignThingToGroup'];
/** Field-service mutations beyond the SPEC's list (issue 14: the studio assigns a selection of things at once). */
const installerMutationExtras = ['assignThingsToGroup'];
const specManagerMutations = [
  'sendCommands',
  'createGroup',
  'deleteGroup',
  'createUser',
  'setUserRole',
  'deleteUser',
  'createApiClient',
  'revokeApiClient',
  'createMqttCredential',
  'revokeMqttCredential',
];
/** Manager mutations beyond the SPEC's list. */
const managerMutationExtras = ['renameGroup', 'setRetention'];
/** Manager queries beyond the SPEC's list (issue 18: the deployment's instances). */
const managerQueryExtras = ['deployment'];

const sorted = (names: readonly string[]) => [...names].sort();
const specRoots: Record<Audience, Record<OperationType, string[]>> = {
  anonymous: { Query: ['_empty'], Mutation: ['login', 'refreshToken'], Subscription: [] },
  Viewer: {
    Query: sorted([...specViewerQueries, ...readOnlyExtras]),
    Mutation: sorted(['logout', 'refreshToken']),
    Subscription: sorted(['messages', 'alerts', 'commandStatus']),
  },
  Installer: {
    Query: sorted([...specViewerQueries, ...readOnlyExtras]),
    Mutation: sorted(['logout', 'refreshToken', ...specInstallerMutations, ...installerMutationExtras]),
    Subscription: sorted(['messages', 'alerts', 'commandStatus']),
  },
  Manager: {
    Query: sorted([...specViewerQueries, ...readOnlyExtras, ...specManagerQueries, ...managerQueryExtras]),
    Mutation: sorted([
      'logout',
      'refreshToken',
      ...specInstallerMutations,
      ...installerMutationExtras,
      ...specManagerMutations,
      ...managerMutationExtras,
    ]),
    Subscription: sorted(['messages', 'alerts', 'commandStatus']),
  },
};

/** The root fields the access table gives an audience. */
function tableRoots(audience: Audience): Record<OperationType, string[]> {
  const roots = {} as Record<OperationType, string[]>;
  for (const type of operationTypes)
    roots[type] = sorted(Object.keys(operationAccess[type]).filter((field) => mayCall(audience, type, field)));
  return roots;
}

const fullSchema = makeExecutableSchema({ typeDefs, resolvers: allResolvers() });
const fullRoots: Record<OperationType, string[]> = {
  Query: sorted(Object.keys(fullSchema.getQueryType()!.getFields())),
  Mutation: sorted(Object.keys(fullSchema.getMutationType()!.getFields())),
  Subscription: sorted(Object.keys(fullSchema.getSubscriptionType()!.getFields())),
};

/** Types only a Manager's operations use: none may show in another role's introspection. */
const managerOnlyTypes = [
  'ApiClient',
  'ApiClientCredentials',
  'MqttCredential',
  'MqttCredentialSecret',
  'MqttCredentialKind',
  'SendCommandsResult',
  'Deployment',
  'PlatformInstance',
];
/** Types only the field-service mutations use. */
const fieldServiceTypes = ['InstallationResult', 'GroupAssignment', 'AssignmentProblem'];
/** Types only sign-in uses: a signed-in caller's schema does not need them. */
const signInTypes = ['LoginInput', 'LoginResult'];

const introspection =
  '{ __schema { queryType { fields { name } } mutationType { fields { name } } subscriptionType { fields { name } } types { name } } }';

describe('the GraphQL access table (SPEC section 4)', () => {
  test('every root field of the full schema has a row, and every row names a field of the schema', () => {
    assert.deepEqual(operationsWithoutAccessRule(fullSchema), []);
    for (const type of operationTypes)
      assert.deepEqual(sorted(Object.keys(operationAccess[type])), fullRoots[type], `${type}: rows without a field`);
  });

  test('a root field added without a row is reported', () => {
    const grown = makeExecutableSchema({
      typeDefs: [typeDefs, 'extend type Query { secretReport: Int } extend type Mutation { wipeEverything: Boolean }'],
    });
    assert.deepEqual(operationsWithoutAccessRule(grown), ['Query.secretReport', 'Mutation.wipeEverything']);
  });

  for (const audience of audiences) {
    test(`the table gives ${audience} exactly the SPEC's operations`, () => {
      assert.deepEqual(tableRoots(audience), specRoots[audience]);
    });
  }

  test('a Manager has every operation except the sign-in-only ones', () => {
    const signInOnly = ['_empty', 'login'];
    for (const type of operationTypes) {
      assert.deepEqual(
        tableRoots('Manager')[type],
        fullRoots[type].filter((field) => !signInOnly.includes(field)),
        type,
      );
    }
  });

  test("roles nest: a Viewer's operations are an Installer's, an Installer's are a Manager's", () => {
    for (const type of operationTypes) {
      for (const field of tableRoots('Viewer')[type]) assert.ok(mayCall('Installer', type, field), `${type}.${field}`);
      for (const field of tableRoots('Installer')[type]) assert.ok(mayCall('Manager', type, field), `${type}.${field}`);
    }
  });
});

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
      const forbidden = [...signInTypes, ...(role === 'Manager' ? [] : managerOnlyTypes), ...(role === 'Viewer' ? fieldServiceTypes : [])];
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
