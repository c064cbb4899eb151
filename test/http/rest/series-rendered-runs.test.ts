/**
 * Series answers written with runs kept rendered (http/rest/rendered-runs.ts): a compacted day (its hours, or with
 * the days beside it its figures at 1d) and a thing's raw hour are rendered once and copied into later answers while their etag holds. Over HTTP, on both stores: an
 * answer from kept runs is byte for byte the first one and what JSON.stringify writes of it, and a late message, a
 * new message and a compaction show at once.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { closeMqttClients } from '../../helpers/mqtt-clients.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const now = Date.UTC(2026, 10, 26, 12, 0, 0);
const nowS = now / 1000;
const reading = (tsmTs: number, temp: number) => ({ tsmId: 12100, tsmEv: 10, tsmTs, tsmTuid: 'RR-1', temp, humd: temp / 3 });

for (const target of storeTargets) {
  describe(`series answers from kept runs on ${target.name}`, { skip: target.skip }, () => {
    test('kept runs answer byte for byte as made; late, new and compacted messages show at once', async () => {
      const server = await startTestApp(
        { DATABASE_URL: await target.createUrl(), MESSAGE_RETENTION_DAYS: '0', ROLLUP_RETENTION_DAYS: '0' },
        { clock: new ManualClock(now) },
      );
      try {
        const readings = [];
        // Three days to now, a reading every 7 minutes; avg of thirds has long fractions, values negative too.
        for (let t = nowS - 3 * 86_400; t <= nowS - 300; t += 420) readings.push(reading(t, ((t / 420) % 41) - 20));
        await publishUplinks(server, readings);
        await server.app.retention.sweep();
        const rest = new RestClient(server);
        const queries = {
          hours: `from=${nowS - 3 * 86_400}&to=${nowS}&bucket=1h&maxPoints=10000`,
          days: `from=${nowS - 3 * 86_400}&to=${nowS}&bucket=1d`,
          raw: `from=${nowS - 86_400 + 1000}&to=${nowS}&bucket=raw&maxPoints=10000`,
          humdRaw: `from=${nowS - 86_400 + 1000}&to=${nowS}&bucket=raw&maxPoints=10000`,
        };
        const answer = async (query: string, field = 'temp') => {
          const response = await rest.get(`/things/RR-1/series?tsmId=12100&field=${field}&${query}`);
          assert.equal(response.status, 200, query);
          assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
          assert.equal(Number(response.headers.get('content-length')), Buffer.byteLength(response.text));
          assert.ok(response.headers.get('x-request-id'), 'the headers set before the answer are written');
          // What the route writes is what JSON.stringify writes of it.
          assert.equal(response.text, JSON.stringify(response.body));
          return response;
        };
        const cold = await answer(queries.hours);
        const points = (text: string) =>
          (JSON.parse(text) as { data: { points: { t: number; count: number; max: number }[] } }).data.points;
        assert.equal(points(cold.text).length, 3 * 24);
        assert.equal((await answer(queries.hours)).text, cold.text);
        const coldDays = await answer(queries.days);
        assert.equal(points(coldDays.text).length, 4, 'two compacted days whole, the days now cuts and three days ago');
        assert.equal((await answer(queries.days)).text, coldDays.text);
        const coldRaw = await answer(queries.raw);
        assert.ok(points(coldRaw.text).length > 190);
        assert.equal((await answer(queries.raw)).text, coldRaw.text);
        // The same messages' other field: its own runs, not temp's.
        const humd = await answer(queries.humdRaw, 'humd');
        assert.deepEqual(
          points(humd.text).map((p) => p.t),
          points(coldRaw.text).map((p) => p.t),
        );
        assert.notEqual(humd.text.replace('"humd"', '"temp"'), coldRaw.text);

        // Late, two days back, into a compacted day: the hour shows it at once, and after the next compaction too.
        const lateTs = nowS - 2 * 86_400 + 60;
        const lateHour = lateTs - (lateTs % 3600);
        await publishUplinks(server, [reading(lateTs, 100)]);
        const maxAt = (text: string, t: number) => points(text).find((p) => p.t === t)?.max;
        const lateDay = lateTs - (lateTs % 86_400);
        assert.equal(maxAt((await answer(queries.hours)).text, lateHour), 100);
        assert.equal(maxAt((await answer(queries.days)).text, lateDay), 100);
        await server.app.retention.sweep();
        const afterSweep = await answer(queries.hours);
        assert.equal(maxAt(afterSweep.text, lateHour), 100);
        assert.equal((await answer(queries.hours)).text, afterSweep.text);
        const daysAfterSweep = await answer(queries.days);
        assert.equal(maxAt(daysAfterSweep.text, lateDay), 100);
        assert.equal((await answer(queries.days)).text, daysAfterSweep.text);
        assert.notEqual(daysAfterSweep.text, coldDays.text);

        // A new message in a raw hour the answers kept: it is in the next answer.
        const newTs = nowS - 3 * 3600 + 1;
        await publishUplinks(server, [reading(newTs, 77)]);
        const withNew = points((await answer(queries.raw)).text);
        assert.equal(withNew.find((p) => p.t === newTs)?.max, 77);
        assert.equal(withNew.length, points(coldRaw.text).length + 1);
      } finally {
        await server.stop();
      }
    });
  });
}
