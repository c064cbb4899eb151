/** sendCommands when the broker does not take the downlink: 503, and the history keeps nothing (all or nothing). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MqttClient } from 'mqtt';
import { AppError } from '../../../src/domain/errors.js';
import { listCommandHistory } from '../../../src/domain/commands/command-history.js';
import { sendCommands } from '../../../src/domain/commands/send-commands.js';
import { mqttCommandDownlink } from '../../../src/integration/command-downlink.js';
import type { ClientPrincipal } from '../../../src/domain/auth/principal.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { closeMqttClients, connectMqtt } from '../../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);
after(closeMqttClients);

const principal: ClientPrincipal = { kind: 'client', organizationId: 'acme', clientId: 'acme-client', responsible: 'acme-client' };
const commands = [{ tsmId: 1500, tsmEv: 30, transactionId: 1, reportInterval: 60 }];

for (const target of storeTargets) {
  describe(`sendCommands with a failing broker on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let gateway: MqttClient;
    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      gateway = await connectMqtt(server.mqttUrl, {
        username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
      });
      await gateway.publishAsync('thingdesk/acme/up/GW-1', JSON.stringify([{ tsmId: 1112, tsmTs: 1, tsmTuid: 'FAIL-1', uptime: 1 }]), {
        qos: 1,
      });
    });
    after(() => server?.stop());

    test('a publish that fails answers SERVICE_UNAVAILABLE and removes the stored request', async () => {
      const mqtt = { publish: async () => Promise.reject(new Error('broker down')) };
      await assert.rejects(
        sendCommands({ ...server.app, downlink: mqttCommandDownlink(mqtt) }, principal, { tuid: 'FAIL-1', commands }),
        (error: unknown) => error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE',
      );
      assert.deepEqual(await listCommandHistory(server.app, principal, { tuid: 'FAIL-1' }), []);
    });

    test('the request is stored before the publish, so an immediate answer finds it', async () => {
      let seenAtPublish: unknown;
      const mqtt = {
        publish: async () => {
          seenAtPublish = await listCommandHistory(server.app, principal, { tuid: 'FAIL-1' });
        },
      };
      await sendCommands({ ...server.app, downlink: mqttCommandDownlink(mqtt) }, principal, { tuid: 'FAIL-1', commands });
      assert.equal((seenAtPublish as unknown[]).length, 1);
    });
  });
}
