/** The GraphQL access table (SPEC section 4): checked against the full schema and against the SPEC's lists. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { audiences, mayCall, operationAccess } from '../../../src/http/graphql/access.js';
import { operationsWithoutAccessRule } from '../../../src/http/graphql/role-schemas.js';
import { typeDefs } from '../../../src/http/graphql/type-defs.js';
import { fullRoots, fullSchema, operationTypes, sorted, specRoots, tableRoots } from './role-schemas-helpers.js';

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

  test("a platform operator's Manager has every operation except the sign-in-only ones; a tenant's Manager not the platform's own", () => {
    const signInOnly = ['_empty', 'login', 'ssoLogin'];
    const platformOnly = ['deployment'];
    for (const type of operationTypes) {
      const signedIn = fullRoots[type].filter((field) => !signInOnly.includes(field));
      assert.deepEqual(tableRoots('PlatformOperator')[type], signedIn, type);
      assert.deepEqual(
        tableRoots('Manager')[type],
        signedIn.filter((field) => !platformOnly.includes(field)),
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
