import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../../helpers/databases.js';
import { eventually } from '../../helpers/mqtt-clients.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';
import { periodsOf, subscribeAlerts } from './alert-test-helpers.js';

after(cleanupStores);
after(closeMqttClients);

// The real clock, the real timer, the real server and broker: a gateway silent for more than a second.
describe('alert engine end to end with the real clock', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp({ GATEWAY_TIMEOUT_S: '1', ALERT_INTERVAL_S: '1', DEVICE_TIMEOUT_S: '3600' });
  });
  after(() => server?.stop());

  test('a silent gateway opens gateway connection lost over REST and MQTT; hearing it closes it', async () => {
    const rest = new RestClient(server);
    const feed = await subscribeAlerts(server);
    await publishUplinks(server, [{ tsmId: 1112, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'E2E-1', uptime: 1 }], 'GW-E2E');
    const opened = await eventually(
      async () => (await periodsOf(rest, 'E2E-1'))['gateway connection lost'],
      6000,
      'gateway alert over REST',
    );
    assert.equal(opened[0]?.to, null);
    assert.ok((await rest.get('/things/alerts')).body.data.alerting_tuids.includes('E2E-1'));
    await feed.waitFor(1, 3000);
    assert.deepEqual(
      { ...feed.payloads()[0], from: undefined, opened_at: undefined },
      {
        tuid: 'E2E-1',
        alert_type: 'gateway connection lost',
        state: 'opened',
        from: undefined,
        to: null,
        opened_at: undefined,
        closed_at: null,
        gateway_tuid: 'GW-E2E',
        time_zone: 'UTC',
      },
    );

    await publishUplinks(server, [{ tsmId: 1112, tsmEv: 10, tsmTs: 1_790_000_001, tsmTuid: 'E2E-1', uptime: 2 }], 'GW-E2E');
    const closed = await eventually(
      async () => {
        const first = (await periodsOf(rest, 'E2E-1'))['gateway connection lost']?.[0];
        return first?.to ? first : undefined;
      },
      3000,
      'the period closed',
    );
    assert.equal(closed.from, opened[0]?.from);
    await eventually(() => (feed.payloads().some((p) => p.state === 'closed') ? true : undefined), 3000, 'closed event on MQTT');
    const closedEvent = feed.payloads().find((p) => p.state === 'closed');
    assert.equal(closedEvent?.to, closed.to);
  });
});
