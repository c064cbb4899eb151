import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOrganization } from '../../../src/domain/identity/identity-service.js';
import { roles } from '../../../src/domain/identity/types.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const day = 1_790_035_200;
const points = '{ t count min max avg first last }';
const thingSeries = (args: string) =>
  `{ series(tuid: "S-1", tsmId: 12100, field: "temp", ${args}) { tuid groupId tsmId field bucket segments { from to bucket } points ${points} } }`;
const groupSeries = (groupId: string, args: string) =>
  `{ groupSeries(groupId: "${groupId}", tsmId: 12100, field: "temp", ${args}) { tuid groupId bucket points ${points} } }`;

for (const target of storeTargets) {
  describe(`GraphQL series on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    const users = {} as Record<(typeof roles)[number], GraphqlClient>;
    let rival: GraphqlClient;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      for (const role of roles) users[role] = (await signInAs(server, role)).client;
      await createOrganization({ store: server.app.store, clock: server.app.clock }, { name: 'Rival', id: 'rival' });
      rival = (await signInAs(server, 'Manager', { organizationId: 'rival', organizationName: 'Rival' })).client;
      await publishUplinks(server, [
        { tsmId: 12100, tsmEv: 10, tsmTs: day + 10, tsmTuid: 'S-1', temp: 20 },
        { tsmId: 12100, tsmEv: 10, tsmTs: day + 20, tsmTuid: 'S-1', temp: 24 },
        { tsmId: 12100, tsmEv: 10, tsmTs: day + 3600, tsmTuid: 'S-1', temp: 30 },
      ]);
    });
    after(() => server?.stop());

    for (const role of roles) {
      test(`${role}: series and groupSeries answer the same points as REST`, async () => {
        const thing = await users[role].request(thingSeries(`from: ${day}, to: ${day + 7200}, bucket: "1h"`));
        assert.equal(thing.body.errors, undefined, JSON.stringify(thing.body));
        assert.deepEqual(thing.body.data!.series, {
          tuid: 'S-1',
          groupId: null,
          tsmId: 12100,
          field: 'temp',
          bucket: '1h',
          segments: [{ from: day, to: day + 7200, bucket: '1h' }],
          points: [
            { t: day, count: 2, min: 20, max: 24, avg: 22, first: 20, last: 24 },
            { t: day + 3600, count: 1, min: 30, max: 30, avg: 30, first: 30, last: 30 },
          ],
        });
        const group = await users[role].request(groupSeries('unassigned', `from: ${day}, to: ${day + 7200}`));
        assert.deepEqual(group.body.data!.groupSeries, {
          tuid: null,
          groupId: 'unassigned',
          bucket: 'raw',
          points: [20, 24, 30].map((v, i) => ({
            t: [day + 10, day + 20, day + 3600][i],
            count: 1,
            min: v,
            max: v,
            avg: v,
            first: v,
            last: v,
          })),
        });
      });
    }

    test('bad input names the field (bucket, from, maxPoints)', async () => {
      const viewer = users.Viewer;
      assertBadInput(await viewer.request(thingSeries(`from: ${day}, to: ${day + 7200}, bucket: "5m"`)), ['bucket']);
      assertBadInput(await viewer.request(thingSeries(`from: ${day + 7200}, to: ${day}`)), ['from']);
      assertBadInput(await viewer.request(thingSeries(`from: ${day}, to: ${day + 7200}, bucket: "1h", maxPoints: 1`)), ['bucket']);
      assertBadInput(await viewer.request(thingSeries(`from: ${day}, to: ${day + 7200}, maxPoints: 0`)), ['maxPoints']);
    });

    test('Thing.seriesFields: per message id, the numeric fields of recent messages, each one series answers for', async () => {
      await publishUplinks(server, [
        { tsmId: 1100, tsmEv: 11, tsmTs: day + 5, tsmTuid: 'F-1', swVersion: '1.0.0', modelCode: 'ENV', psn: 'P1' },
        { tsmId: 12100, tsmEv: 10, tsmTs: day + 10, tsmTuid: 'F-1', temp: 21.5, note: 'text', flags: [1, 2] },
        { tsmId: 12100, tsmEv: 10, tsmTs: day + 20, tsmTuid: 'F-1', temp: 22, humd: 40 },
        { tsmId: 1210, tsmEv: 10, tsmTs: day + 30, tsmTuid: 'F-1', lat: 60.1, lon: 24.9, extra: { depth: 3 } },
      ]);
      const query = '{ thing(tuid: "F-1") { seriesFields { tsmId fields } } }';
      const fields = dataOf(await users.Viewer.request(query)).thing.seriesFields as { tsmId: number; fields: string[] }[];
      // Strings, arrays and the envelope (tsmId, tsmEv, tsmTs, ...) are not series; nested members go by their path.
      assert.deepEqual(fields, [
        { tsmId: 1210, fields: ['lat', 'lon', 'extra.depth'] },
        { tsmId: 12100, fields: ['temp', 'humd'] },
      ]);
      for (const { tsmId, fields: names } of fields) {
        for (const field of names) {
          const series = await users.Viewer.request(
            `{ series(tuid: "F-1", tsmId: ${tsmId}, field: "${field}", from: ${day}, to: ${day + 60}) { points { t } } }`,
          );
          assert.ok(dataOf(series).series.points.length > 0, `${tsmId} ${field}`);
        }
      }
      assert.equal((await rival.request(query)).body.data?.thing, null, "another organization's thing stays hidden");
    });

    test("another organization's thing or group answers NOT_FOUND, as an unknown one", async () => {
      assertGraphqlError(await rival.request(thingSeries(`from: ${day}, to: ${day + 7200}`)), 'NOT_FOUND', 'No thing S-1.');
      assert.equal((await users.Manager.request('mutation { createGroup(groupId: "north") { groupId } }')).body.errors, undefined);
      assertGraphqlError(await rival.request(groupSeries('north', `from: ${day}, to: ${day + 7200}`)), 'NOT_FOUND', 'No group north.');
      const own = await rival.request(groupSeries('unassigned', `from: ${day}, to: ${day + 7200}`));
      assert.deepEqual(own.body.data!.groupSeries.points, []);
    });
  });
}
