/**
 * The retention sweep compacts the hourly rollups of days that are over into days (migration 0017), and series
 * answer byte for byte as before, over HTTP; a late message for a compacted day shows at once.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { closeMqttClients } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp } from '../helpers/test-app.js';
import { publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const now = Date.UTC(2026, 10, 26, 12, 0, 0);
const nowS = now / 1000;
const reading = (tsmTs: number, temp: number) => ({ tsmId: 12100, tsmEv: 10, tsmTs, tsmTuid: 'CP-1', temp, humd: temp / 2 });

for (const target of storeTargets) {
  describe(`rollup compaction through the sweep on ${target.name}`, { skip: target.skip }, () => {
    test('series answer the same after the sweep compacts past days; a late message for a compacted day shows at once', async () => {
      const server = await startTestApp(
        { DATABASE_URL: await target.createUrl(), MESSAGE_RETENTION_DAYS: '0', ROLLUP_RETENTION_DAYS: '0' },
        { clock: new ManualClock(now) },
      );
      try {
        // Three days back to now, a reading every 50 minutes (quarters: exact sums in any order).
        const readings = [];
        for (let t = nowS - 3 * 86_400; t <= nowS; t += 3000) readings.push(reading(t, ((t / 3000) % 37) / 4));
        await publishUplinks(server, readings);
        const rest = new RestClient(server);
        const queries = [
          `from=${nowS - 3 * 86_400}&to=${nowS}&bucket=1h`,
          `from=${nowS - 3 * 86_400}&to=${nowS}&bucket=1d`,
          `from=${nowS - 2 * 86_400 - 7200}&to=${nowS - 86_400 + 3600}&bucket=1d`,
          `from=${nowS - 3 * 86_400}&to=${nowS}&maxPoints=80`,
          `from=${nowS - 86_400}&to=${nowS}&bucket=raw`,
        ];
        const answers = async () =>
          Promise.all(
            queries.map(async (query) => {
              const response = await rest.get(`/things/CP-1/series?tsmId=12100&field=temp&${query}`);
              assert.equal(response.status, 200, query);
              return JSON.stringify(response.body);
            }),
          );
        const before = await answers();
        const report = await server.app.retention.sweep();
        assert.ok((report?.rollupRowsCompacted ?? 0) > 0, 'the sweep compacted the past days');
        assert.deepEqual(await answers(), before);

        // Late: two days back, into an hour that was compacted.
        const lateTs = nowS - 2 * 86_400 + 60;
        await publishUplinks(server, [reading(lateTs, 100)]);
        const hourStart = lateTs - (lateTs % 3600);
        const { body } = await rest.get(`/things/CP-1/series?tsmId=12100&field=temp&from=${hourStart}&to=${hourStart}&bucket=1h`);
        const [point] = body.data.points as { t: number; max: number; count: number }[];
        assert.equal(point?.max, 100);
        const earlier = (JSON.parse(before[0]!) as { data: { points: { t: number; count: number }[] } }).data.points.find(
          (p) => p.t === hourStart,
        );
        assert.equal(point?.count, (earlier?.count ?? 0) + 1);
      } finally {
        await server.stop();
      }
    });
  });
}
