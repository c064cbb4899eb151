/**
 * SPEC sections 12 and 16: the things list sorted by name, REST and GraphQL, on both stores: code point order (the
 * same on SQLite and PostgreSQL, whatever the database's collation), things without a name last in either
 * direction, and cursors that walk through the named things into the unnamed ones.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { dataOf, signInAs, type SignedInUser } from '../../helpers/graphql-users.js';
import { RestClient, type RestResponse } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

// Code point order: upper case before lower case, accented letters after z. A locale collation (en_US) would
// answer alpha, Beta, beta, Éclair, Zulu instead.
const named = [
  ['N-5', 'Beta'],
  ['N-3', 'Zulu'],
  ['N-1', 'alpha'],
  ['N-4', 'beta'],
  ['N-2', 'Éclair'],
] as const;
const byName = ['N-5', 'N-3', 'N-1', 'N-4', 'N-2'];
const unnamed = ['U-1', 'U-2'];

for (const target of storeTargets) {
  describe(`the things list sorted by name on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let viewer: SignedInUser;
    const rest = () => new RestClient(server);

    /** Every TUID of the list in this sort, read `limit` at a time through the cursors. */
    const walk = async (sort: string, limit: number): Promise<string[]> => {
      const tuids: string[] = [];
      let cursor: string | null = null;
      do {
        const response: RestResponse<{ data: { things: { tuid: string }[]; next_cursor: string | null } }> = await rest().get(
          `/things?sort=${sort}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        assert.equal(response.status, 200, response.text);
        tuids.push(...response.body.data.things.map((thing) => thing.tuid));
        cursor = response.body.data.next_cursor;
      } while (cursor && tuids.length < 20);
      return tuids;
    };

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      for (const tuid of [...unnamed, ...named.map(([t]) => t)]) {
        assert.equal((await rest().post(`/things/${tuid}/installations`, { installation_status: 'installed' })).status, 200);
      }
      for (const [tuid, name] of named) {
        const response = await rest().request('PATCH', `/things/${tuid}`, { body: { name } });
        assert.equal(response.status, 200, response.text);
      }
      viewer = await signInAs(server, 'Viewer');
    });
    after(() => server?.stop());

    test('sort=name either way, unnamed last; every page size walks the same order; GraphQL agrees', async () => {
      assert.deepEqual(await walk('name', 100), [...byName, ...unnamed]);
      assert.deepEqual(await walk('name:desc', 100), [...[...byName].reverse(), ...[...unnamed].reverse()]);
      // Pages of 2 and 3 end inside the named things, on the border and inside the unnamed ones.
      for (const limit of [1, 2, 3]) {
        assert.deepEqual(await walk('name:asc', limit), [...byName, ...unnamed], `asc by ${limit}`);
        assert.deepEqual(await walk('name:desc', limit), [...[...byName].reverse(), ...[...unnamed].reverse()], `desc by ${limit}`);
      }
      const first = dataOf(
        await viewer.client.request('{ things(sort: "name:desc", first: 4) { total nodes { tuid name } pageInfo { endCursor } } }'),
      );
      assert.equal(first.things.total, 7);
      assert.deepEqual(
        first.things.nodes.map((node: { name: string }) => node.name),
        ['Éclair', 'beta', 'alpha', 'Zulu'],
      );
      const rest2 = dataOf(
        await viewer.client.request('query ($a: String) { things(sort: "name:desc", after: $a) { nodes { tuid name } } }', {
          a: first.things.pageInfo.endCursor,
        }),
      );
      assert.deepEqual(rest2.things.nodes, [
        { tuid: 'N-5', name: 'Beta' },
        { tuid: 'U-2', name: null },
        { tuid: 'U-1', name: null },
      ]);
      const other = await rest().get(
        `/things?sort=name&cursor=${(await rest().get('/things?sort=name:desc&limit=1')).body.data.next_cursor}`,
      );
      assert.equal(other.status, 400, "a cursor of the other direction is not this list's");
    });
  });
}
