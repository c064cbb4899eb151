/**
 * Fault: a store outage under a simulated fleet (issue 12 item 10). While the store is down the broker refuses
 * connections with "server unavailable"; the simulator's gateways must keep reconnecting and resume by themselves.
 */
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { cleanupStores, postgresSkipReason } from '../helpers/databases.js';
import { eventually } from '../helpers/mqtt-clients.js';
import { startFleet, type FleetHandle } from '../../src/simulator/fleet.js';
import { testBootstrap } from '../helpers/test-app.js';
import { sleep, withStoreBehindProxy } from './store-outage-helpers.js';

after(cleanupStores);

describe('simulated fleet across a store outage', { skip: postgresSkipReason }, () => {
  test(
    'the simulator reconnects through the "server unavailable" CONNACKs of an outage and resumes by itself (issue 12 item 10)',
    { timeout: 60_000 },
    async () => {
      await withStoreBehindProxy({ STORE_TIMEOUT_MS: '1000' }, async ({ proxy, server }) => {
        let fleet: FleetHandle | undefined;
        try {
          fleet = await startFleet({
            url: server.mqttUrl,
            username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
            password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
            organizationId: 'acme',
            gateways: 3,
            devices: 6,
            rate: 60,
            tuidPrefix: `RS${randomBytes(2).toString('hex').toUpperCase()}`,
            drainTimeoutMs: 1000,
          });
          const running = fleet;
          await eventually(() => (running.progress().messagesAcked >= 30 ? true : undefined), 15_000, 'acknowledgements before the outage');

          await proxy.cut();
          // Long enough for every gateway to be disconnected (its publish could not be stored) and refused on reconnect.
          await sleep(4000);
          const ackedDuringOutage = running.progress().messagesAcked;
          await proxy.restore();
          await eventually(
            () => (running.progress().messagesAcked >= ackedDuringOutage + 60 ? true : undefined),
            30_000,
            'the fleet to resume after the outage',
          );
        } finally {
          await fleet?.stop();
        }
      });
    },
  );
});
