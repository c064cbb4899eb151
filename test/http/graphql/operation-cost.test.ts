import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../../helpers/databases.js';
import type { GraphqlClient, GraphqlResponse } from '../../helpers/graphql-client.js';
import { signInAs } from '../../helpers/graphql-users.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const day = 1_790_035_200;
const year = 366 * 86_400;

/** `count` aliases (`prefix0`, `prefix1`, ...) of `field`. */
const aliased = (count: number, field: string, prefix = 'a') =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}: ${field}`).join('\n');
const rawYear = (tuid = 'S-1') =>
  `series(tuid: "${tuid}", tsmId: 12100, field: "temp", from: ${day - year}, to: ${day}, bucket: "raw") { bucket }`;

function assertOverBudget(response: GraphqlResponse, budget = 50_000): { cost: number } {
  const error = response.body.errors?.[0];
  assert.equal(error?.extensions?.code, 'COST_LIMIT', JSON.stringify(response.body));
  assert.equal(response.body.data, undefined, 'nothing runs');
  assert.equal(error!.extensions!.budget, budget);
  assert.ok(error!.extensions!.cost > budget);
  assert.match(error!.message, new RegExp(`GRAPHQL_COST_LIMIT`));
  assert.match(error!.message, new RegExp(`${budget}`));
  assert.match(error!.message, new RegExp(`${error!.extensions!.cost}`));
  return { cost: error!.extensions!.cost as number };
}

function assertRan(response: GraphqlResponse): void {
  assert.ok(!response.body.errors?.some((error) => error.extensions?.code === 'COST_LIMIT'), JSON.stringify(response.body));
  assert.ok(response.body.data, JSON.stringify(response.body));
}

describe('GraphQL cost budget per request (GRAPHQL_COST_LIMIT 50000)', () => {
  let server: TestApp;
  let viewer: GraphqlClient;

  before(async () => {
    server = await startTestApp();
    viewer = (await signInAs(server, 'Viewer')).client;
    await publishUplinks(server, [{ tsmId: 12100, tsmEv: 10, tsmTs: day - 60, tsmTuid: 'S-1', temp: 20 }]);
  });
  after(() => server?.stop());

  test('twenty aliased raw series over a year are refused before anything runs, naming the budget and the cost', async () => {
    const { cost } = assertOverBudget(await viewer.request(`{ ${aliased(20, rawYear())} }`));
    // Each: maxPoints 1000 plus one per hour of raw range (8,784).
    assert.equal(cost, 20 * (1000 + 8784));
    assertRan(await viewer.request(`{ ${aliased(2, rawYear())} }`));
  });

  test('twenty aliased messages of 10000 each are refused; a page of them runs', async () => {
    assertOverBudget(await viewer.request(`{ ${aliased(20, 'messages(tuid: "S-1", limit: 10000)')} }`));
    assertRan(await viewer.request(`{ ${aliased(20, 'messages(tuid: "S-1", limit: 100)')} }`));
  });

  test('aliased rule previews are refused past the budget: each counts a fleet and scans 10 things of 1000 messages', async () => {
    const previewOf = 'alertRulePreview(tsmId: 12100, field: "temp") { thingCount }';
    const { cost } = assertOverBudget(await viewer.request(`{ ${aliased(3, previewOf)} }`));
    assert.equal(cost, 3 * (10_000 + 10 * 1000));
    assertRan(await viewer.request(`{ ${aliased(2, previewOf)} }`));
  });

  test('fragments count where they are spread, as often as they are spread', async () => {
    const document = `{ ...Ten ...Ten } fragment Ten on Query { ${aliased(10, 'messages(tuid: "S-1", limit: 5000)')} }`;
    const { cost } = assertOverBudget(await viewer.request(document));
    assert.equal(cost, 2 * 10 * 5000);
    assertRan(await viewer.request(`{ ...Ten } fragment Ten on Query { ${aliased(4, 'messages(tuid: "S-1", limit: 5000)')} }`));
  });

  test('a list parent multiplies what its items select', async () => {
    // 1000 things, each reading its newest 200 messages for its series fields.
    const { cost } = assertOverBudget(await viewer.request('{ things(first: 1000) { nodes { tuid seriesFields { tsmId fields } } } }'));
    assert.equal(cost, 1000 * (1 + 200));
    assertRan(await viewer.request('{ things(first: 1000) { nodes { tuid } } }'));
    assertRan(await viewer.request('{ things(first: 20) { nodes { tuid seriesFields { tsmId fields } } } }'));
  });

  test('variables change the cost of one cached, compiled operation: it is costed on every request', async () => {
    const query = `query Many($limit: Int!, $maxPoints: Int) {
      ${aliased(10, 'messages(tuid: "S-1", limit: $limit)')}
      ${aliased(5, `series(tuid: "S-1", tsmId: 12100, field: "temp", from: ${day - 86_400}, to: ${day}, maxPoints: $maxPoints) { bucket }`, 's')}
    }`;
    // Run often enough to be cached and compiled (graphql-jit compiles at the second run).
    for (let run = 0; run < 3; run++) assertRan(await viewer.request(query, { limit: 10, maxPoints: 100 }));
    assertOverBudget(await viewer.request(query, { limit: 10_000, maxPoints: 100 }));
    assertOverBudget(await viewer.request(query, { limit: 10, maxPoints: 10_000 }));
    assertRan(await viewer.request(query, { limit: 10, maxPoints: 100 }));
  });

  test("the studio's own reads run: the overview, a thing's page and its chart", async () => {
    assertRan(await viewer.request('{ fleetHealth(days: 30, limit: 50) { windowDays } }'));
    assertRan(
      await viewer.request(
        `{ thing(tuid: "S-1") { tuid seriesFields { tsmId fields } } messages(tuid: "S-1", limit: 100)
           series(tuid: "S-1", tsmId: 12100, field: "temp", from: ${day - 30 * 86_400}, to: ${day}, maxPoints: 1000) { bucket } }`,
      ),
    );
  });
});
