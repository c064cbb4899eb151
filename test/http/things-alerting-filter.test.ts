/** The `alerting` filter of the things list, REST and GraphQL, with cursor paging, over the fleet of fleet-health-helpers.ts. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { dataOf } from '../helpers/graphql-users.js';
import { closeMqttClients } from '../helpers/mqtt-clients.js';
import { activePeriods, fleet, fleetHealthTestServer } from './fleet-health-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`fleet health on ${target.name}`, { skip: target.skip }, () => {
    const context = fleetHealthTestServer(target);

    describe('the alerting filter of the things list', () => {
      const alertingTuids = () => [...new Set(activePeriods().map((p) => p.tuid))].sort();
      const quietTuids = () => fleet.map((thing) => thing.tuid).filter((tuid) => !alertingTuids().includes(tuid));

      test('REST: alerting=true lists only things with an active alert, false only the others; cursor paging keeps the filter', async () => {
        for (const [flag, expected] of [
          ['true', alertingTuids()],
          ['false', quietTuids()],
        ] as const) {
          const seen: string[] = [];
          let cursor: string | null = null;
          do {
            const page: { status: number; body: { data: { things: { tuid: string }[]; next_cursor: string | null } } } =
              await context.rest.get(`/things?alerting=${flag}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
            assert.equal(page.status, 200);
            assert.ok(page.body.data.things.length <= 2);
            seen.push(...page.body.data.things.map((thing) => thing.tuid));
            cursor = page.body.data.next_cursor;
          } while (cursor !== null);
          assert.deepEqual(seen, expected, `alerting=${flag}`);
        }
        // With the other filters.
        const north = await context.rest.get('/things?alerting=true&group_id=north');
        assert.deepEqual(
          north.body.data.things.map((thing: { tuid: string }) => thing.tuid),
          alertingTuids().filter((tuid) => fleet.find((thing) => thing.tuid === tuid)?.group === 'north'),
        );
        const bad = await context.rest.get('/things?alerting=maybe');
        assert.equal(bad.status, 400);
        assert.deepEqual(
          bad.body.errors.map((e: { field: string }) => e.field),
          ['alerting'],
        );
      });

      test('GraphQL: things(alerting:) pages with the filter', async () => {
        for (const [flag, expected] of [
          [true, alertingTuids()],
          [false, quietTuids()],
        ] as const) {
          const seen: string[] = [];
          let after: string | null = null;
          for (;;) {
            const page: { nodes: { tuid: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } = dataOf(
              await context.viewer.client.request(
                'query ($a: Boolean, $after: String) { things(alerting: $a, first: 3, after: $after) { nodes { tuid } pageInfo { hasNextPage endCursor } } }',
                { a: flag, after },
              ),
            ).things;
            seen.push(...page.nodes.map((node) => node.tuid));
            if (!page.pageInfo.hasNextPage) break;
            after = page.pageInfo.endCursor;
          }
          assert.deepEqual(seen, expected, `alerting: ${flag}`);
        }
        const all = dataOf(await context.viewer.client.request('{ things(first: 100) { nodes { tuid } } }')).things.nodes;
        assert.equal(all.length, fleet.length, 'without the filter every thing is listed');
      });
    });
  });
}
