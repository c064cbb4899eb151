/**
 * An uplink the store could not take is never acknowledged (SPEC section 6), in either protocol: the embedded
 * broker closes the connection instead (MQTT 5: a DISCONNECT with 0x89, Server busy, rather than a failure PUBACK,
 * which would end the delivery on the gateway's side). The gateway resends after reconnecting, and the message is
 * stored once. The fault is real: another connection holds SQLite's write lock past the writer's busy timeout.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { SqliteBinding } from '../../src/store/sqlite-binding.js';
import { connectAsync, type IDisconnectPacket } from 'mqtt';
import { cleanupStores } from '../helpers/databases.js';
import { eventually } from '../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap } from '../helpers/test-app.js';

after(cleanupStores);

for (const protocolVersion of [4, 5] as const) {
  describe(`an uplink the store refuses is not acknowledged, MQTT ${protocolVersion === 4 ? '3.1.1' : '5'}`, () => {
    test(
      'the connection closes without a PUBACK; after the store recovers the resent message is stored once',
      { timeout: 30_000 },
      async () => {
        const server = await startTestApp();
        const gateway = await connectAsync(server.mqttUrl, {
          protocolVersion,
          clientId: `busy-gw-${protocolVersion}`,
          clean: false,
          ...(protocolVersion === 5 && { properties: { sessionExpiryInterval: 300 } }),
          reconnectPeriod: 100,
          username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
          password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
        });
        const lock = new SqliteBinding(server.config.databaseUrl.slice('file:'.length));
        try {
          gateway.on('error', () => undefined);
          const disconnects: IDisconnectPacket[] = [];
          gateway.on('disconnect', (packet) => disconnects.push(packet));
          let closes = 0;
          gateway.on('close', () => (closes += 1));

          lock.exec('begin immediate');
          let acknowledged = false;
          const tuid = `BUSY-${protocolVersion}`;
          const payload = JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: tuid, tsmGw: 'GW-BUSY', batl: 50 }]);
          const published = gateway.publishAsync('thingdesk/acme/up/GW-BUSY', payload, { qos: 1 }).then(() => (acknowledged = true));

          // The writer gives up after its busy timeout (5 s): the connection closes, and nothing was acknowledged.
          await eventually(() => (closes > 0 ? true : undefined), 15_000, 'the platform to close the connection');
          assert.equal(acknowledged, false);
          if (protocolVersion === 5)
            assert.deepEqual(
              disconnects.map((packet) => packet.reasonCode),
              [0x89],
            );

          lock.exec('rollback');
          await published;
          assert.equal(await server.app.store.messages.count(tuid), 1);
        } finally {
          if (lock.inTransaction) lock.exec('rollback');
          lock.close();
          await gateway.endAsync(true);
          await server.stop();
        }
      },
    );
  });
}
