/**
 * Rollups expire through the retention sweep (issue 16): hours older than ROLLUP_RETENTION_DAYS leave, newer ones
 * stay, and the series reads what is left; with rollups kept forever nothing leaves.
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
const reading = (tsmTs: number, temp: number) => ({ tsmId: 12100, tsmEv: 10, tsmTs, tsmTuid: 'RR-1', temp, humd: 40 });

for (const target of storeTargets) {
  describe(`rollup retention on ${target.name}`, { skip: target.skip }, () => {
    for (const [days, kept] of [
      ['2', ['recent']],
      ['0', ['old', 'recent']],
    ] as const) {
      test(`ROLLUP_RETENTION_DAYS=${days}: the sweep keeps ${kept.join(' and ')} hours`, async () => {
        const clock = new ManualClock(now);
        const server = await startTestApp(
          { DATABASE_URL: await target.createUrl(), ROLLUP_RETENTION_DAYS: days, MESSAGE_RETENTION_DAYS: '0' },
          { clock },
        );
        try {
          // An hour five days back and one an hour ago (device time); both arrive now.
          await publishUplinks(server, [reading(nowS - 5 * 86_400, 10), reading(nowS - 3_600, 20)]);
          const hours = async () => {
            const { status, body } = await new RestClient(server).get(
              `/things/RR-1/series?tsmId=12100&field=temp&from=${nowS - 6 * 86_400}&to=${nowS}&bucket=1h`,
            );
            assert.equal(status, 200);
            return (body.data.points as { t: number; avg: number }[]).map((point) => point.avg);
          };
          assert.deepEqual(await hours(), [10, 20]);
          const report = await server.app.retention.sweep();
          assert.equal(
            report?.rollups,
            days === '0' ? 0 : 8,
            'the old day of temp and humd, per thing and per group: its figures and its hours',
          );
          assert.deepEqual(await hours(), kept.length === 2 ? [10, 20] : [20]);
        } finally {
          await server.stop();
        }
      });
    }
  });
}
