/**
 * GraphQL for its tools (issue 19): the standard introspection document of graphql-js answers for a signed-in
 * caller with that caller's role schema, while the limits still refuse what is abusive; each role schema is
 * published as SDL equal to what introspection gives.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildClientSchema, getIntrospectionQuery, printSchema, type IntrospectionQuery } from 'graphql';
import { queryLimits } from '../../../src/http/graphql/validation-rules.js';
import type { Role } from '../../../src/domain/identity/types.js';
import { cleanupStores } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

const roles: Role[] = ['Viewer', 'Installer', 'Manager'];
/** What GraphiQL, GraphQL Code Generator, Apollo, Altair and Postman send: every option on. */
const standardDocument = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
});
const ofType = (levels: number): string => (levels === 0 ? 'name' : `ofType { ${ofType(levels - 1)} }`);

describe('introspection for tools', () => {
  let server: TestApp;
  const clients = {} as Record<Role, GraphqlClient>;
  let anonymous: GraphqlClient;

  before(async () => {
    server = await startTestApp();
    for (const role of roles) clients[role] = (await signInAs(server, role)).client;
    anonymous = new GraphqlClient(server);
  });
  after(() => server?.stop());

  for (const role of roles) {
    test(`the standard introspection document (every option) answers a ${role} with the ${role} schema`, async () => {
      const data = dataOf(await clients[role].request(standardDocument)) as IntrospectionQuery;
      const schema = buildClientSchema(data);
      const mutations = Object.keys(schema.getMutationType()?.getFields() ?? {});
      assert.equal(mutations.includes('createUser'), role === 'Manager', mutations.join(', '));
      assert.equal(mutations.includes('setInstallationStatus'), role !== 'Viewer', mutations.join(', '));
      assert.ok(schema.getType('Thing'), 'the Thing type is described');
    });
  }

  test('the standard document without a token is still UNAUTHENTICATED', async () => {
    const response = await anonymous.request(standardDocument, undefined, { token: null });
    assert.ok((response.body.errors ?? []).length > 0);
    assert.ok(
      response.body.errors!.every((error) => error.extensions?.code === 'UNAUTHENTICATED'),
      JSON.stringify(response.body.errors),
    );
    assert.equal(response.body.data, undefined);
  });

  test('introspection deeper than its own bound is refused before running', async () => {
    // types(1) fields(2) type(3), then ofType levels, then name: one level past the bound.
    const deep = `{ __schema { types { fields { type { ${ofType(queryLimits.maxIntrospectionDepth - 3)} } } } } }`;
    assertGraphqlError(
      await clients.Viewer.request(deep),
      'BAD_USER_INPUT',
      `The operation introspects ${queryLimits.maxIntrospectionDepth + 1} levels deep; at most ${queryLimits.maxIntrospectionDepth} are allowed.`,
    );
    const atBound = `{ __schema { types { fields { type { ${ofType(queryLimits.maxIntrospectionDepth - 4)} } } } } }`;
    assert.ok(dataOf(await clients.Viewer.request(atBound)).__schema.types.length > 0);
  });

  test("introspection lists nested past three (every type, its fields, their types' fields) are refused", async () => {
    const fanOut = '{ __schema { types { fields { args { type { fields { name } } } } } } }';
    assertGraphqlError(
      await clients.Viewer.request(fanOut),
      'BAD_USER_INPUT',
      `The operation introspects lists nested 4 deep; at most ${queryLimits.maxIntrospectionLists} are allowed.`,
    );
    const byType = '{ __type(name: "Thing") { fields { type { fields { args { name } } } } } }';
    assert.ok(dataOf(await clients.Viewer.request(byType)).__type.fields.length > 0, 'three levels of lists answer');
  });

  test('aliased copies of the standard document are refused by the introspection field bound', async () => {
    const twice = `${standardDocument.replace('__schema', 'first: __schema').replace(/^\s*query IntrospectionQuery \{/, 'query IntrospectionQuery { second: __schema { types { ...FullType } }')}`;
    const response = await clients.Manager.request(twice);
    assertGraphqlError(
      response,
      'BAD_USER_INPUT',
      new RegExp(`^The operation introspects \\d+ fields; at most ${queryLimits.maxIntrospectionFields} are allowed\\.$`),
    );
    assert.equal(response.body.data, undefined);
  });

  test('naming __schema gains nothing outside introspection: the ordinary depth, field and root bounds still hold', async () => {
    const nested = (levels: number): string => (levels === 0 ? 'lat' : `location { ${nested(levels - 1)} }`);
    // thing(1), then location levels, then lat: one level past the bound.
    const deep = `{ __schema { types { name } } thing(tuid: "T-1") { ${nested(queryLimits.maxDepth - 1)} } }`;
    assertGraphqlError(
      await clients.Viewer.request(deep),
      'BAD_USER_INPUT',
      `The operation is nested ${queryLimits.maxDepth + 1} levels deep; at most ${queryLimits.maxDepth} are allowed.`,
    );
    const wide = `{ __schema { types { name } } me { ${'email '.repeat(queryLimits.maxFields)} } }`;
    assertGraphqlError(
      await clients.Viewer.request(wide),
      'BAD_USER_INPUT',
      /^The operation selects \d+ fields; at most 300 are allowed\.$/,
    );
    const roots = Array.from({ length: queryLimits.maxRootFields + 1 }, (_, i) => `s${i}: __schema { description }`).join(' ');
    assertGraphqlError(
      await clients.Viewer.request(`{ ${roots} }`),
      'BAD_USER_INPUT',
      `The operation has ${queryLimits.maxRootFields + 1} top-level fields; at most ${queryLimits.maxRootFields} are allowed.`,
    );
  });

  test('a fragment on an introspection type is held to the introspection bounds, others to the ordinary ones', async () => {
    const fragment = `fragment Deep on __Type { fields { type { ${ofType(queryLimits.maxIntrospectionDepth - 2)} } } }`;
    const refused = await clients.Viewer.request(`{ __schema { types { ...Deep } } } ${fragment}`);
    assert.ok(
      refused.body.errors?.some(
        (error) =>
          error.message === `The fragment Deep introspects 17 levels deep; at most ${queryLimits.maxIntrospectionDepth} are allowed.`,
      ),
      JSON.stringify(refused.body),
    );
    const standardFragments = await clients.Viewer.request(standardDocument);
    assert.ok(dataOf(standardFragments).__schema, 'FullType (13 levels) and TypeRef are not refused as ordinary fragments');
    const smuggled = `{ me { ...Smuggled } } fragment Smuggled on User { ${'email '.repeat(queryLimits.maxFields + 1)} }`;
    const response = await clients.Viewer.request(smuggled);
    assert.ok(
      response.body.errors?.some(
        (error) =>
          error.message ===
          `The fragment Smuggled selects ${queryLimits.maxFields + 1} fields; at most ${queryLimits.maxFields} are allowed.`,
      ),
    );
  });

  describe('the SDL of each role schema', () => {
    const sdl = (role: string | undefined, token: string | undefined) =>
      fetch(server.url(`${server.config.graphqlPath}/schema.graphql${role ? `?role=${role}` : ''}`), {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });

    for (const role of roles) {
      test(`GET schema.graphql?role=${role.toLowerCase()} equals what introspection gives a ${role}`, async () => {
        const response = await sdl(role.toLowerCase(), clients[role].accessToken);
        assert.equal(response.status, 200);
        assert.match(response.headers.get('content-type') ?? '', /^text\/plain; charset=utf-8/);
        const introspected = buildClientSchema(dataOf(await clients[role].request(standardDocument)) as IntrospectionQuery);
        assert.equal(await response.text(), `${printSchema(introspected)}\n`);
      });
    }

    test("without role it is the caller's own; a smaller role's may be read, a larger one's is FORBIDDEN", async () => {
      const own = await sdl(undefined, clients.Installer.accessToken);
      assert.equal(await own.text(), await (await sdl('installer', clients.Installer.accessToken)).text());
      assert.equal((await sdl('viewer', clients.Installer.accessToken)).status, 200);
      const larger = await sdl('manager', clients.Installer.accessToken);
      assert.equal(larger.status, 403);
      assert.equal(((await larger.json()) as { code: string }).code, 'FORBIDDEN');
    });

    test('without a valid token it is 401, an unknown role 400 naming role', async () => {
      const anonymousResponse = await sdl('viewer', undefined);
      assert.equal(anonymousResponse.status, 401);
      assert.equal(((await anonymousResponse.json()) as { code: string }).code, 'UNAUTHENTICATED');
      assert.equal((await sdl('viewer', 'not-a-token')).status, 401);
      const unknown = await sdl('owner', clients.Manager.accessToken);
      assert.equal(unknown.status, 400);
      assert.deepEqual(
        ((await unknown.json()) as { errors: { field: string }[] }).errors.map((problem) => problem.field),
        ['role'],
      );
    });
  });
});
