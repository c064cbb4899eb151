import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { hear, minute, subscribeAlerts } from './alert-test-helpers.js';

after(cleanupStores);
after(closeMqttClients);

// 2026-03-29 01:00 UTC is the spring-forward in Helsinki: 03:00 EET becomes 04:00 EEST.
const at = (hour: number, min: number) => Date.UTC(2026, 2, 29, hour, min);
const s = (ms: number) => Math.floor(ms / 1000);

for (const target of storeTargets) {
  describe(`alert periods in local time and the MQTT alert feed on ${target.name}`, { skip: target.skip }, () => {
    const clock = new ManualClock(at(0, 10));
    let server: TestApp;
    let feed: Awaited<ReturnType<typeof subscribeAlerts>>;
    const rest = () => new RestClient(server);
    const alertsIn = async (from: number, to: number) => {
      const response = await rest().get(`/things/DST-1/alerts?from=${s(from)}&to=${s(to)}`);
      assert.equal(response.status, 200);
      return response.body.data as { alert_type: string; alerts: { from: string; to: string | null }[] }[];
    };

    before(async () => {
      const env = { DEVICE_TIMEOUT_S: '1800', GATEWAY_TIMEOUT_S: '3600', ALERT_INTERVAL_S: '2000000', ALERT_TIMEZONE: 'Europe/Helsinki' };
      server = await startTestApp({ ...env, DATABASE_URL: await target.createUrl() }, { clock });
      feed = await subscribeAlerts(server);
      // 00:10 UTC heard; silent from 00:40 UTC (02:40 EET); heard again 01:20 UTC (04:20 EEST): 40 minutes across
      // the change. Silent again from 01:50 UTC (device) and 02:20 UTC (gateway); the clock stops at 03:00 UTC.
      await hear(server, 'GW-DST', ['DST-1']);
      clock.set(at(0, 50));
      await server.app.alertEngine.evaluateSilence();
      clock.set(at(1, 20));
      await hear(server, 'GW-DST', ['DST-1']);
      clock.set(at(3, 0));
      await server.app.alertEngine.evaluateSilence();
    });
    after(() => server?.stop());

    test('periods across the daylight-saving change are local date-times in ALERT_TIMEZONE', async () => {
      const response = await rest().get('/things/DST-1/alerts');
      assert.deepEqual(response.body.data, [
        { tuid: 'DST-1', alert_type: 'gateway connection lost', alerts: [{ from: '2026-03-29T05:20:00', to: null }] },
        {
          tuid: 'DST-1',
          alert_type: 'device connection lost',
          alerts: [
            { from: '2026-03-29T02:40:00', to: '2026-03-29T04:20:00' },
            { from: '2026-03-29T04:50:00', to: null },
          ],
        },
      ]);
    });

    test('from/to select the periods overlapping the window', async () => {
      assert.deepEqual(await alertsIn(at(0, 0), at(0, 39)), [], 'before the first period');
      assert.deepEqual(await alertsIn(at(0, 0), at(0, 40)), [
        { tuid: 'DST-1', alert_type: 'device connection lost', alerts: [{ from: '2026-03-29T02:40:00', to: '2026-03-29T04:20:00' }] },
      ]);
      assert.equal((await alertsIn(at(1, 20), at(1, 30))).length, 1, 'a period ending exactly at from overlaps');
      assert.deepEqual(await alertsIn(at(1, 21), at(1, 49)), [], 'between the periods');
      const active = await alertsIn(at(2, 30), at(2, 30));
      assert.deepEqual(
        active.map((r) => [r.alert_type, r.alerts]),
        [
          ['gateway connection lost', [{ from: '2026-03-29T05:20:00', to: null }]],
          ['device connection lost', [{ from: '2026-03-29T04:50:00', to: null }]],
        ],
      );
    });

    test('opened and closed periods are published on thingdesk/{org}/alerts', async () => {
      await feed.waitFor(4);
      assert.ok(feed.received.every((m) => m.topic === 'thingdesk/acme/alerts'));
      const device = { tuid: 'DST-1', alert_type: 'device connection lost', gateway_tuid: null, time_zone: 'Europe/Helsinki' };
      const payloads = feed.payloads();
      assert.deepEqual(payloads.slice(0, 2), [
        { ...device, state: 'opened', from: '2026-03-29T02:40:00', to: null, opened_at: s(at(0, 40)), closed_at: null },
        {
          ...device,
          state: 'closed',
          from: '2026-03-29T02:40:00',
          to: '2026-03-29T04:20:00',
          opened_at: s(at(0, 40)),
          closed_at: s(at(1, 20)),
        },
      ]);
      const later = payloads.slice(2).sort((a, b) => String(a.alert_type).localeCompare(String(b.alert_type)));
      assert.deepEqual(later, [
        { ...device, state: 'opened', from: '2026-03-29T04:50:00', to: null, opened_at: s(at(1, 50)), closed_at: null },
        {
          tuid: 'DST-1',
          alert_type: 'gateway connection lost',
          gateway_tuid: 'GW-DST',
          time_zone: 'Europe/Helsinki',
          state: 'opened',
          from: '2026-03-29T05:20:00',
          to: null,
          opened_at: s(at(2, 20)),
          closed_at: null,
        },
      ]);
      clock.advance(minute);
      await server.app.alertEngine.evaluateSilence();
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(feed.received.length, 4, 'nothing changed, nothing published');
    });
  });
}
