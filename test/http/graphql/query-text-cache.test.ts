import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OperationPreparer } from '../../../src/http/graphql/operation-preparer.js';
import { QueryTextCache } from '../../../src/http/graphql/query-text-cache.js';
import { buildRoleSchemas } from '../../../src/http/graphql/role-schemas.js';
import { allResolvers } from '../../../src/http/graphql/resolvers/all-resolvers.js';
import { aliasedRawSeries } from '../../../bench/soak/hostile-reads.js';

describe('GraphQL documents are cached within a bound on their texts’ length', () => {
  test('a Viewer sending a new twenty-alias query every second fills at most 256 K characters; a repeated query stays cached', () => {
    const preparer = new OperationPreparer(buildRoleSchemas(allResolvers()), 50_000);
    const hot = '{ me { email } }';
    const hotDocument = preparer.prepare(hot, 'Viewer');
    const tuids = Array.from({ length: 20 }, (_, i) => `T-${i}`);
    let longest = 0;
    for (let second = 0; second < 1000; second++) {
      const query = aliasedRawSeries(tuids, 86_400, 1_800_000_000 + second);
      longest = Math.max(longest, query.length);
      preparer.prepare(query, 'Viewer');
      if (second % 50 === 0) preparer.prepare(hot, 'Viewer');
    }
    assert.ok(longest > 2000, `the attack's queries are long (${longest} characters)`);
    // Old: a thousand entries whatever their size, 2.6 M characters of text and about 270 MB of documents.
    assert.ok(preparer.cachedQueryChars <= 256 * 1024, `${preparer.cachedQueryChars} characters cached`);
    assert.ok(preparer.cachedQueryChars > 200 * 1024, 'the cache still holds what fits');
    const again = preparer.prepare(hot, 'Viewer');
    assert.ok(!Array.isArray(hotDocument) && !Array.isArray(again));
    assert.equal(
      (again as { document: unknown }).document,
      (hotDocument as { document: unknown }).document,
      'the repeated query was not evicted',
    );
  });

  test('least recently used goes first; a key over the whole budget is not kept', () => {
    const cache = new QueryTextCache<number>(3, 10);
    cache.set('aaa', 1);
    cache.set('bbb', 2);
    cache.set('ccc', 3);
    assert.equal(cache.get('aaa'), 1);
    cache.set('ddd', 4);
    assert.equal(cache.get('bbb'), undefined, 'the least recently used of three went');
    assert.deepEqual([cache.get('aaa'), cache.get('ccc'), cache.get('ddd')], [1, 3, 4]);
    cache.set('eeeeeeee', 5);
    assert.equal(cache.cachedChars, 8, 'room for eight characters meant evicting all three');
    cache.set('x'.repeat(11), 6);
    assert.equal(cache.get('x'.repeat(11)), undefined);
    assert.equal(cache.get('eeeeeeee'), 5);
  });
});
