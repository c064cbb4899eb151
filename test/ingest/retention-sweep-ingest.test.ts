/**
 * The retention sweep never holds ingest (SPEC section 9): on SQLite it runs in small steps on the uplink writer
 * thread, between batches, so a gateway's publish made while a long sweep runs is committed and acknowledged
 * before the sweep ends.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { SqliteBinding } from '../../src/store/sqlite-binding.js';
import { dayMs } from '../../src/domain/retention/retention-rules.js';
import { cleanupStores } from '../helpers/databases.js';
import { closeMqttClients, connectMqtt } from '../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap } from '../helpers/test-app.js';

after(cleanupStores);
after(closeMqttClients);

describe('retention sweep beside ingest on SQLite', () => {
  test('a publish made during a long sweep is acknowledged before the sweep ends, and stored', async () => {
    const server = await startTestApp();
    try {
      // 60,000 messages that arrived 400 days ago (the default keeps 365), written beside the platform.
      const seeding = new SqliteBinding(server.config.databaseUrl.slice('file:'.length));
      const insert = seeding.prepare(
        `insert into messages (tuid, tsm_ts, tsm_id, fingerprint, organization_id, received_at, body)
         values (?, ?, 12100, ?, 'acme', ?, '{"tsmId":12100}')`,
      );
      const old = Date.now() - 400 * dayMs;
      seeding.transaction(() => {
        for (let i = 0; i < 60_000; i++) insert.run(`OLD-${i % 100}`, 1_600_000_000 + i, i.toString(16), old);
      })();
      seeding.close();

      const gateway = await connectMqtt(server.mqttUrl, {
        username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
      });
      let sweepEnded = false;
      const sweeping = server.app.retention.sweep().then((report) => {
        sweepEnded = true;
        return report;
      });
      await gateway.publishAsync(
        'thingdesk/acme/up/GW-1',
        JSON.stringify([{ tsmId: 12100, tsmTs: 1_790_000_000, tsmTuid: 'NEW-1', temp: 20 }]),
        {
          qos: 1,
        },
      );
      assert.equal(sweepEnded, false, 'acknowledged while the sweep was still running');
      await gateway.endAsync();
      assert.equal((await sweeping)!.messages, 60_000);
      assert.equal(await server.app.store.messages.count('NEW-1'), 1);
      assert.equal(await server.app.store.messages.count('OLD-1'), 0);
    } finally {
      await server.stop();
    }
  });
});
