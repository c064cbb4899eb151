/**
 * GraphQL errors never leak internals, and the operation limits (depth, fields, top-level fields) are checked before
 * anything runs (SPEC section 4).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GraphQLError } from 'graphql';
import { formatGraphqlError } from '../../../src/http/graphql/graphql-errors.js';
import { queryLimits } from '../../../src/http/graphql/validation-rules.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertGraphqlError, dataOf } from '../../helpers/graphql-users.js';
import type { TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { seedReads, startReadsServer } from './operations-things-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`GraphQL operation limits and errors on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let viewer: GraphqlClient;
    let manager: GraphqlClient;

    before(async () => {
      server = await startReadsServer(target);
      ({ viewer, manager } = await seedReads(server));
    });
    after(() => server?.stop());

    test('an operation over the depth limit is refused with BAD_USER_INPUT before running', async () => {
      // Introspection has its own bounds (introspection.test.ts); the ordinary depth is that of the data fields.
      const nested = (levels: number): string => (levels === 0 ? 'lat' : `location { ${nested(levels - 1)} }`);
      // thing(1), then location levels, then lat.
      const response = await viewer.request(`{ thing(tuid: "T-1") { ${nested(queryLimits.maxDepth - 1)} } }`);
      assertGraphqlError(
        response,
        'BAD_USER_INPUT',
        `The operation is nested ${queryLimits.maxDepth + 1} levels deep; at most ${queryLimits.maxDepth} are allowed.`,
      );
      assert.equal(response.body.data, undefined);
      // At the limit the depth rule is silent: what remains is GraphQL's own refusal of location on Location.
      const atLimit = await viewer.request(`{ thing(tuid: "T-1") { ${nested(queryLimits.maxDepth - 2)} } }`);
      assertGraphqlError(atLimit, 'BAD_USER_INPUT', /^Cannot query field "location" on type "Location"/);
    });

    test('an operation over the field or root-field limits is refused before running: nothing is created', async () => {
      const wide = `{ me { ${'email '.repeat(queryLimits.maxFields)} } }`;
      assertGraphqlError(
        await viewer.request(wide),
        'BAD_USER_INPUT',
        `The operation selects ${queryLimits.maxFields + 1} fields; at most ${queryLimits.maxFields} are allowed.`,
      );
      const creates = Array.from(
        { length: queryLimits.maxRootFields + 1 },
        (_, i) => `g${i}: createGroup(groupId: "limit-${i}") { groupId }`,
      ).join(' ');
      const response = await manager.request(`mutation { ${creates} }`);
      assertGraphqlError(
        response,
        'BAD_USER_INPUT',
        `The operation has ${queryLimits.maxRootFields + 1} top-level fields; at most ${queryLimits.maxRootFields} are allowed.`,
      );
      assert.equal(response.body.data, undefined);
      const groups = dataOf(await manager.request('{ groups(q: "limit-") { groupId } }')).groups;
      assert.deepEqual(groups, [], 'no mutation of a refused operation ran');
      const atLimit = Array.from({ length: queryLimits.maxRootFields }, (_, i) => `m${i}: me { email }`).join(' ');
      assert.equal(Object.keys(dataOf(await viewer.request(`{ ${atLimit} }`))).length, queryLimits.maxRootFields);
    });

    test('an unexpected failure is INTERNAL_SERVER_ERROR with a generic message; the details go only to the log', () => {
      const logged: unknown[] = [];
      const internal = new TypeError("Cannot read properties of undefined (reading 'password_hash') at /srv/thingdesk/store.js:42");
      const formatted = formatGraphqlError(new GraphQLError(internal.message, { originalError: internal, path: ['things'] }), (error) =>
        logged.push(error),
      );
      assert.deepEqual(formatted, {
        message: 'An unexpected error occurred.',
        locations: undefined,
        path: ['things'],
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      });
      assert.deepEqual(logged, [internal]);
    });
  });
}
