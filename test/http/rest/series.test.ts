/** GET /things/{tuid}/series and /groups/{groupid}/series: buckets, fields, group series, the raw horizon, 400s, isolation. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';
import { day, hour, reading, seriesTestServer } from './series-helpers.js';

after(cleanupStores);
after(closeMqttClients);

for (const target of storeTargets) {
  describe(`series over REST on ${target.name}`, { skip: target.skip }, () => {
    const context = seriesTestServer(target);
    const series = (path: string, query: string) => context.rest.get(`${path}/series?${query}`);

    const range = `from=${day}&to=${day + 2 * 86_400}`;

    test('1h: hourly buckets with count, min, max, avg, first, last; the late message corrects its hour', async () => {
      const { status, body } = await series('/things/S-1', `tsmId=12100&field=temp&${range}&bucket=1h`);
      assert.equal(status, 200);
      assert.deepEqual(body.data, {
        tuid: 'S-1',
        tsmId: 12100,
        field: 'temp',
        bucket: '1h',
        segments: [{ from: day, to: day + 2 * 86_400, bucket: '1h' }],
        points: [
          { t: day, count: 3, min: 18, max: 22, avg: 20, first: 18, last: 22 },
          { t: day + hour, count: 1, min: 25, max: 25, avg: 25, first: 25, last: 25 },
          { t: day + 2 * hour, count: 1, min: 30, max: 30, avg: 30, first: 30, last: 30 },
          { t: day + 86_400, count: 1, min: 5, max: 5, avg: 5, first: 5, last: 5 },
        ],
      });
    });

    test('1d: days folded from the hours, first and last by time', async () => {
      const { body } = await series('/things/S-1', `tsmId=12100&field=temp&${range}&bucket=1d`);
      assert.deepEqual(body.data.points, [
        { t: day, count: 5, min: 18, max: 30, avg: 115 / 5, first: 18, last: 30 },
        { t: day + 86_400, count: 1, min: 5, max: 5, avg: 5, first: 5, last: 5 },
      ]);
    });

    test('raw: each stored message once (the redelivery is not a second point), t = tsmTs', async () => {
      const { body } = await series('/things/S-1', `tsmId=12100&field=temp&${range}&bucket=raw`);
      assert.equal(body.data.bucket, 'raw');
      assert.deepEqual(
        body.data.points.map((p: { t: number; avg: number; count: number }) => [p.t, p.avg, p.count]),
        [
          [day + 5, 18, 1],
          [day + 60, 20, 1],
          [day + 120, 22, 1],
          [day + hour + 30, 25, 1],
          [day + 2 * hour + 10, 30, 1],
          [day + 86_400 + 10, 5, 1],
        ],
      );
    });

    test('unknown and nested fields are rolled up too; a string field or a field never seen gives no points', async () => {
      const extra = await series('/things/S-1', `tsmId=12100&field=extra&${range}&bucket=1h`);
      assert.deepEqual(extra.body.data.points, [{ t: day, count: 2, min: 7, max: 9, avg: 8, first: 7, last: 9 }]);
      const extraRaw = await series('/things/S-1', `tsmId=12100&field=extra&${range}&bucket=raw`);
      assert.deepEqual(
        extraRaw.body.data.points.map((p: { t: number; avg: number }) => [p.t, p.avg]),
        [
          [day + 60, 7],
          [day + 120, 9],
        ],
        'a short message read by the store and a long one parsed give the same kind of point',
      );
      const nested = await series('/things/S-1', `tsmId=12100&field=probe.depth&${range}&bucket=raw`);
      assert.deepEqual(nested.body.data.points, [{ t: day + 60, count: 1, min: 1.5, max: 1.5, avg: 1.5, first: 1.5, last: 1.5 }]);
      for (const field of ['lght', 'never', 'tsmTs', 'probe.label', 'flag', 'note']) {
        const none = await series('/things/S-1', `tsmId=12100&field=${field}&${range}&bucket=raw`);
        assert.equal(none.status, 200, field);
        assert.deepEqual(none.body.data.points, [], field);
      }
    });

    test('auto: the finest bucket within maxPoints', async () => {
      const pick = async (maxPoints: number) =>
        (await series('/things/S-1', `tsmId=12100&field=temp&${range}&maxPoints=${maxPoints}`)).body.data.bucket;
      assert.equal(await pick(1000), 'raw');
      assert.equal(await pick(5), '1h');
      assert.equal(await pick(2), '1d');
      const tooFew = await series('/things/S-1', `tsmId=12100&field=temp&${range}&maxPoints=1`);
      assert.equal(tooFew.status, 400);
      assert.equal(tooFew.body.errors[0].field, 'maxPoints');
    });

    test('raw: a field only some messages carry is found past the messages without it', async () => {
      await publishUplinks(context.server, [
        // An id of its own (unknown to the catalog, stored all the same), so the other tests' figures stay.
        ...[1, 2, 3, 4].map((i) => ({ ...reading('S-3', day + i, { humd: 50 }), tsmId: 4242 })),
        { ...reading('S-3', day + 5, { temp: 1 }), tsmId: 4242 },
        { ...reading('S-3', day + 6, { temp: 2 }), tsmId: 4242 },
      ]);
      const { status, body } = await series('/things/S-3', `tsmId=4242&field=temp&${range}&bucket=raw&maxPoints=2`);
      assert.equal(status, 200);
      assert.deepEqual(
        body.data.points.map((p: { t: number; avg: number }) => [p.t, p.avg]),
        [
          [day + 5, 1],
          [day + 6, 2],
        ],
      );
    });

    test('raw: a message holding an escaped NUL character is read like any other (PostgreSQL jsonb would refuse it)', async () => {
      await publishUplinks(context.server, [{ ...reading('S-4', day + 1, { temp: 3, note: 'a\u0000b' }), tsmId: 4243 }]);
      const { status, body } = await series('/things/S-4', `tsmId=4243&field=temp&${range}&bucket=raw`);
      assert.equal(status, 200);
      assert.deepEqual(
        body.data.points.map((p: { t: number; avg: number }) => [p.t, p.avg]),
        [[day + 1, 3]],
      );
    });

    test('group series: per group at arrival, unassigned for the things in no group', async () => {
      const north = await series('/groups/north', `tsmId=12100&field=temp&${range}&bucket=1h`);
      assert.equal(north.status, 200);
      assert.equal(north.body.data.group_id, 'north');
      // The late message for hour 0 arrived after S-1 joined north: it counts for north, not for its hour's old group.
      assert.deepEqual(
        north.body.data.points.map((p: { t: number; count: number; avg: number }) => [p.t, p.count, p.avg]),
        [
          [day, 1, 18],
          [day + 2 * hour, 1, 30],
          [day + 86_400, 1, 5],
        ],
      );
      const unassigned = await series('/groups/unassigned', `tsmId=12100&field=temp&${range}&bucket=1h`);
      assert.deepEqual(
        unassigned.body.data.points.map((p: { t: number; count: number; avg: number }) => [p.t, p.count, p.avg]),
        [
          [day, 2, 21],
          [day + hour, 1, 25],
          [day + 2 * hour, 1, 10],
        ],
      );
      const raw = await series('/groups/unassigned', `tsmId=12100&field=temp&${range}&bucket=raw`);
      assert.deepEqual(
        raw.body.data.points.map((p: { t: number }) => p.t),
        [day + 60, day + 120, day + hour + 30, day + 2 * hour + 20],
      );
      const northRaw = await series('/groups/north', `tsmId=12100&field=temp&${range}&bucket=raw`);
      assert.deepEqual(
        northRaw.body.data.points.map((p: { t: number }) => p.t),
        [day + 5, day + 2 * hour + 10, day + 86_400 + 10],
      );
    });

    test('raw retention boundary: the part before the horizon comes from the hourly rollups, and segments say so', async () => {
      context.horizon = day + hour + 1;
      try {
        const { body } = await series('/things/S-1', `tsmId=12100&field=temp&from=${day}&to=${day + 3 * hour}&bucket=raw`);
        assert.deepEqual(body.data.segments, [
          { from: day, to: day + 2 * hour - 1, bucket: '1h' },
          { from: day + 2 * hour, to: day + 3 * hour, bucket: 'raw' },
        ]);
        assert.deepEqual(
          body.data.points.map((p: { t: number; count: number }) => [p.t, p.count]),
          [
            [day, 3],
            [day + hour, 1],
            [day + 2 * hour + 10, 1],
          ],
        );
      } finally {
        context.horizon = null;
      }
    });

    test('400s: malformed tsmId or field, bad bucket, from > to, too many points for an explicit bucket', async () => {
      const fieldOf = async (query: string) => {
        const response = await series('/things/S-1', query);
        assert.equal(response.status, 400, query);
        return response.body.errors.map((e: { field: string }) => e.field);
      };
      assert.deepEqual(await fieldOf(`tsmId=abc&field=temp&${range}`), ['tsmId']);
      assert.deepEqual(await fieldOf(`tsmId=12100&field=&${range}`), ['field']);
      assert.deepEqual(await fieldOf(`tsmId=12100&field=${'f'.repeat(101)}&${range}`), ['field']);
      assert.deepEqual(await fieldOf(`tsmId=12100&field=temp&${range}&bucket=5m`), ['bucket']);
      assert.deepEqual(await fieldOf(`tsmId=12100&field=temp&from=${day + 10}&to=${day}`), ['from']);
      assert.deepEqual(await fieldOf(`tsmId=12100&field=temp&${range}&bucket=1h&maxPoints=3`), ['bucket']);
      assert.deepEqual(await fieldOf(`tsmId=12100&field=temp&${range}&bucket=raw&maxPoints=5`), ['bucket']);
      assert.deepEqual(await fieldOf(`tsmId=12100&field=temp&${range}&maxPoints=10001`), ['maxPoints']);
      assert.deepEqual(await fieldOf(`tsmId=12100&field=temp&from=${day}`), ['to']);
      // The same requests inside the limits are answered.
      assert.equal((await series('/things/S-1', `tsmId=12100&field=temp&${range}&bucket=1h&maxPoints=4`)).status, 200);
      assert.equal((await series('/things/S-1', `tsmId=12100&field=temp&${range}&bucket=raw&maxPoints=6`)).status, 200);
    });

    test("isolation: another organization's thing or group is the same 404 as an unknown one", async () => {
      const thing = await context.rival.get(`/things/S-1/series?tsmId=12100&field=temp&${range}`);
      assert.deepEqual(thing.body, { statusCode: 404, error: 'Not Found', message: 'No thing S-1.', code: 'NOT_FOUND' });
      const unknownThing = await context.rest.get(`/things/NOPE/series?tsmId=12100&field=temp&${range}`);
      assert.equal(unknownThing.status, 404);
      const group = await context.rival.get(`/groups/north/series?tsmId=12100&field=temp&${range}`);
      assert.deepEqual(group.body, { statusCode: 404, error: 'Not Found', message: 'No group north.', code: 'NOT_FOUND' });
      // The rival's own unassigned group holds nothing of Acme's.
      const rivalUnassigned = await context.rival.get(`/groups/unassigned/series?tsmId=12100&field=temp&${range}&bucket=raw`);
      assert.deepEqual(rivalUnassigned.body.data.points, []);
    });
  });
}
