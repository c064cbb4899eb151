import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { formatLocalDateTime } from '../../../src/domain/alerts/local-time.js';
import { cleanupStores } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

// 2026-03-29 is the spring-forward day in Helsinki (03:00 EET becomes 04:00 EEST).
const now = Date.UTC(2026, 2, 30, 12, 0, 0);
const hour = 3600_000;

describe('alert read side over REST (SPEC section 3)', () => {
  let server: TestApp;
  let rest: RestClient;
  before(async () => {
    server = await startTestApp({ ALERT_TIMEZONE: 'Europe/Helsinki' }, { clock: new ManualClock(now) });
    rest = new RestClient(server);
    // Levels above the battery threshold: the periods below are written by hand, and the alert engine must not
    // open one of its own (its writes are tested in test/domain/alerts/).
    await publishUplinks(server, [
      { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'AL-1', batl: 50 },
      { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'AL-2', batl: 90 },
      { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'AL-3', batl: 90 },
    ]);
    const alerts = server.app.store.alerts;
    // AL-1: a closed gateway period across the DST change, an old one outside 7 days, and an active battery alert.
    await alerts.open({
      organizationId: 'acme',
      tuid: 'AL-1',
      alertType: 'gateway connection lost',
      openedAt: Date.UTC(2026, 2, 29, 0, 30),
    });
    await alerts.close('AL-1', 'gateway connection lost', Date.UTC(2026, 2, 29, 1, 30));
    await alerts.open({ organizationId: 'acme', tuid: 'AL-1', alertType: 'gateway connection lost', openedAt: now - 10 * 24 * hour });
    await alerts.close('AL-1', 'gateway connection lost', now - 9 * 24 * hour);
    await alerts.open({ organizationId: 'acme', tuid: 'AL-1', alertType: 'battery low', openedAt: now - 2 * hour });
    await alerts.open({ organizationId: 'acme', tuid: 'AL-2', alertType: 'device connection lost', openedAt: now - hour });
  });
  after(() => server?.stop());

  test('local date-times in ALERT_TIMEZONE across a daylight-saving change', () => {
    assert.equal(formatLocalDateTime(Date.UTC(2026, 2, 29, 0, 30), 'Europe/Helsinki'), '2026-03-29T02:30:00');
    assert.equal(formatLocalDateTime(Date.UTC(2026, 2, 29, 1, 30), 'Europe/Helsinki'), '2026-03-29T04:30:00');
    assert.equal(formatLocalDateTime(Date.UTC(2026, 9, 25, 0, 30), 'Europe/Helsinki'), '2026-10-25T03:30:00');
    assert.equal(formatLocalDateTime(Date.UTC(2026, 9, 25, 1, 30), 'Europe/Helsinki'), '2026-10-25T03:30:00');
  });

  test('default window: the last 7 days, one record per type, periods oldest first, active ones with to null', async () => {
    const response = await rest.get('/things/AL-1/alerts');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.data, [
      { tuid: 'AL-1', alert_type: 'gateway connection lost', alerts: [{ from: '2026-03-29T02:30:00', to: '2026-03-29T04:30:00' }] },
      { tuid: 'AL-1', alert_type: 'battery low', alerts: [{ from: '2026-03-30T13:00:00', to: null }] },
    ]);
  });

  test('from/to select the periods overlapping the window', async () => {
    const s = (ms: number) => Math.floor(ms / 1000);
    const old = await rest.get(`/things/AL-1/alerts?from=${s(now - 11 * 24 * hour)}&to=${s(now - 9.5 * 24 * hour)}`);
    assert.deepEqual(
      old.body.data.map((r: { alert_type: string; alerts: unknown[] }) => [r.alert_type, r.alerts.length]),
      [['gateway connection lost', 1]],
    );
    const touching = await rest.get(`/things/AL-1/alerts?from=${s(Date.UTC(2026, 2, 29, 1, 30))}&to=${s(Date.UTC(2026, 2, 29, 1, 30))}`);
    assert.equal(touching.body.data.length, 1, 'a period ending exactly at from overlaps');
    const none = await rest.get(`/things/AL-3/alerts`);
    assert.deepEqual(none.body.data, []);
    const bad = await rest.get(`/things/AL-1/alerts?from=${s(now)}&to=${s(now) - 1}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'from');
    assert.equal((await rest.get('/things/AL-1/alerts?from=yesterday')).status, 400);
  });

  test('GET /things/alerts lists the things with an active alert; /count counts the active alerts', async () => {
    assert.deepEqual((await rest.get('/things/alerts')).body, { data: { alerting_tuids: ['AL-1', 'AL-2'] } });
    assert.deepEqual((await rest.get('/things/alerts/count')).body, { data: { alert_count: 2 } });
  });
});
