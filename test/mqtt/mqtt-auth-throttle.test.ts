import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/domain/clock.js';
import { cleanupStores } from '../helpers/databases.js';
import { closeMqttClients, connectMqtt } from '../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);
after(closeMqttClients);

const badPassword = /Bad user ?name or password/i;
const throttled = /Not authorized/i;

for (const protocolVersion of [4, 5] as const) {
  describe(`MQTT authentication throttle, MQTT ${protocolVersion === 4 ? '3.1.1' : '5'} (issue 12 item 9)`, () => {
    let server: TestApp;
    let clock: ManualClock;
    before(async () => {
      clock = new ManualClock(Date.now());
      server = await startTestApp({ MQTT_AUTH_FAILURES_PER_USERNAME: '3', MQTT_AUTH_FAILURES_PER_ADDRESS: '6' }, { clock });
    });
    after(() => server?.stop());
    const connect = (username: string, password: string) =>
      connectMqtt(server.mqttUrl, { protocolVersion, username, password, reconnectPeriod: 0 });
    const gateway = testBootstrap.BOOTSTRAP_MQTT_USERNAME;
    const rightPassword = testBootstrap.BOOTSTRAP_MQTT_PASSWORD;

    test('past the failures per username, even the right password is refused unchecked until the window ends', async () => {
      for (let i = 0; i < 3; i++) await assert.rejects(connect(gateway, 'wrong-password'), badPassword);
      await assert.rejects(connect(gateway, rightPassword), throttled);
      clock.advance(61_000);
      const client = await connect(gateway, rightPassword);
      await client.endAsync();
    });

    test('past the failures per address, every username from it is refused; a success clears only its own username', async () => {
      await assert.rejects(connect(gateway, 'wrong-password'), badPassword);
      (await connect(gateway, rightPassword)).end();
      for (let i = 0; i < 5; i++) await assert.rejects(connect(`ghost-${i}`, 'wrong-password'), badPassword);
      await assert.rejects(connect('ghost-9', 'wrong-password'), throttled);
      await assert.rejects(connect(gateway, rightPassword), throttled);
      clock.advance(61_000);
      (await connect(gateway, rightPassword)).end();
    });
  });
}
