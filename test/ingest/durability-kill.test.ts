import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { SqliteBinding } from '../../src/store/sqlite-binding.js';
import { connectAsync } from 'mqtt';
import { cleanupStores, createSqliteUrl } from '../helpers/databases.js';
import { freePort, startPlatformProcess, type PlatformProcess } from '../helpers/platform-process.js';
import { testBootstrap } from '../helpers/test-app.js';

after(cleanupStores);

describe('durability (SPEC section 6)', () => {
  test('every acknowledged QoS 1 uplink survives SIGKILL and is stored exactly once after restart and redelivery', async () => {
    const databaseUrl = createSqliteUrl();
    const mqttPort = await freePort();
    const env = { DATABASE_URL: databaseUrl, MQTT_PORT: String(mqttPort) };
    let platform: PlatformProcess | undefined = await startPlatformProcess(env);
    // A persistent session: after the restart the client sends again whatever was not acknowledged.
    const publisher = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
      protocolVersion: 4,
      clientId: 'durability-publisher',
      clean: false,
      reconnectPeriod: 200,
      username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
      password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
    });
    publisher.on('error', () => undefined);
    const acknowledged = new Set<number>();
    const sent: number[] = [];
    const total = 3000;
    const t0 = 1_790_000_000;
    try {
      let killed = false;
      let inFlightAtKill = 0;
      // A publisher that stops being acknowledged (it never reconnected) fails the test instead of holding it forever.
      const publishDeadline = Date.now() + 120_000;
      for (let seq = 0; seq < total; seq++) {
        // Up to 100 publishes in flight, so the kill lands while many are unacknowledged.
        while (sent.length - acknowledged.size >= 100) {
          assert.ok(Date.now() < publishDeadline, `publishes acknowledged within 120 s (${acknowledged.size} of ${sent.length})`);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        const payload = JSON.stringify([
          { tsmId: 1110, tsmEv: 10, tsmTs: t0 + seq, tsmTuid: `KILL-${seq % 20}`, tsmGw: 'GW-K', batl: seq % 100 },
        ]);
        sent.push(seq);
        publisher.publish('thingdesk/acme/up/GW-K', payload, { qos: 1 }, (error) => {
          if (!error) acknowledged.add(seq);
        });
        // Kill the platform while messages are in flight, once some hundreds are acknowledged.
        if (!killed && acknowledged.size >= 300) {
          killed = true;
          inFlightAtKill = sent.length - acknowledged.size;
          platform.child.kill('SIGKILL');
          await platform.exited;
          platform = undefined;
          platform = await startPlatformProcess(env);
        }
      }
      assert.ok(killed, 'the platform was killed during the run');
      assert.ok(inFlightAtKill > 0, 'publishes were in flight when it was killed');
      const ackedAtKill = acknowledged.size;
      // Wait for the client to deliver everything (including resends after the restart).
      const deadline = Date.now() + 30_000;
      while (acknowledged.size < total && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(acknowledged.size, total, `all ${total} publishes acknowledged in the end (had ${ackedAtKill} when killed)`);
    } finally {
      await publisher.endAsync(true).catch(() => undefined);
      platform?.child.kill('SIGTERM');
      await platform?.exited;
    }
    const db = new SqliteBinding(databaseUrl.slice('file:'.length), { readonly: true });
    try {
      const rows = db
        .prepare<[], { tsm_ts: number; n: number }>("select tsm_ts, count(*) as n from messages where tuid like 'KILL-%' group by tsm_ts")
        .all();
      const counts = new Map(rows.map((row) => [row.tsm_ts - t0, row.n]));
      const missing = [...acknowledged].filter((seq) => !counts.has(seq));
      const doubled = [...counts].filter(([, n]) => n !== 1);
      assert.deepEqual(missing, [], 'no acknowledged message is missing');
      assert.deepEqual(doubled, [], 'no message is stored twice');
      assert.equal(counts.size, total);
    } finally {
      db.close();
    }
  });
});
