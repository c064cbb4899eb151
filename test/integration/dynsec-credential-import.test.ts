/**
 * MQTT_AUTH=mosquitto-dynsec and the import of MQTT credentials (SPEC section 12): imported credentials reach
 * Mosquitto as single ones do, and connect with the passwords the import answered.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { connectAsync } from 'mqtt';
import { cleanupStores, createSqliteUrl } from '../helpers/databases.js';
import { DynsecMosquitto, dynsecSkipReason } from '../helpers/dynsec-mosquitto.js';
import { eventually } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp } from '../helpers/test-app.js';

after(cleanupStores);

describe('MQTT_AUTH=mosquitto-dynsec: imported credentials', { skip: dynsecSkipReason }, () => {
  test('every imported credential connects to Mosquitto with its generated password', { timeout: 60_000 }, async () => {
    const broker = await DynsecMosquitto.start();
    const server = await startTestApp({
      DATABASE_URL: createSqliteUrl(),
      MQTT_URL: broker.adminUrl,
      MQTT_AUTH: 'mosquitto-dynsec',
      MQTT_AUTH_SEALING_KEY: randomBytes(32).toString('base64'),
      MQTT_SHARED_GROUP: 'dynsec-import',
      MQTT_CONSUMER_SLOTS: '1',
      MQTT_CLIENT_ID: 'dynsec-import',
    });
    try {
      const rest = new RestClient(server);
      const imported = await rest.request('POST', '/mqtt-credentials/import', {
        rawBody: '{"username":"dyn-imp-1","kind":"gateway"}\n{"username":"dyn-imp-2","kind":"integration"}\n',
        headers: { 'content-type': 'application/x-ndjson' },
      });
      assert.equal(imported.status, 200, imported.text);
      for (const { username, password } of imported.body.data.rows as { username: string; password: string }[]) {
        await eventually(
          async () => {
            try {
              const client = await connectAsync(broker.url, {
                username,
                password,
                clientId: username,
                protocolVersion: 5,
                reconnectPeriod: 0,
                connectTimeout: 2000,
              });
              await client.endAsync();
              return true;
            } catch {
              return undefined;
            }
          },
          10_000,
          `${username} accepted by Mosquitto`,
        );
      }
    } finally {
      await server.stop();
      await broker.stop();
    }
  });
});
