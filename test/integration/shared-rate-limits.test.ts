/**
 * RATE_LIMIT_PER_TOKEN holds for the deployment, not per instance (issue 18): one API client's requests spread
 * round-robin over two and three instances on one PostgreSQL store are accepted up to the configured rate, within
 * 20 %, where each instance counting alone would accept the rate once per instance.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../src/domain/clock.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../helpers/databases.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

const perMinute = 100;

describe('rate limits shared by the instances', { skip: postgresSkipReason }, () => {
  for (const count of [2, 3]) {
    test(`one caller over ${count} instances gets the configured rate, within 20 %`, { timeout: 60_000 }, async () => {
      // One minute window for the whole test: the clock stands still a second into it.
      const clock = new ManualClock(Date.UTC(2026, 10, 26, 2, 0, 1));
      const databaseUrl = await createPostgresUrl();
      const instances: TestApp[] = [];
      try {
        for (let i = 0; i < count; i++) {
          instances.push(
            await startTestApp(
              {
                DATABASE_URL: databaseUrl,
                RATE_LIMIT_PER_TOKEN: String(perMinute),
                RATE_LIMIT_PER_ADDRESS: '100000',
                MQTT_CLIENT_ID: `rate-${i}`,
              },
              { clock },
            ),
          );
        }
        const token = await new RestClient(instances[0]!).accessToken();
        const clients = instances.map((instance) => new RestClient(instance));
        let accepted = 0;
        let limited = 0;
        // Steady traffic: a request to each instance in turn, a pause (a few syncs) after every ten.
        for (let i = 0; i < perMinute * 2.4; i++) {
          const response = await clients[i % count]!.get('/things?limit=1', { headers: { authorization: `Bearer ${token}` } });
          if (response.status === 200) accepted += 1;
          else if (response.status === 429) limited += 1;
          else assert.fail(`unexpected ${response.status}: ${response.text}`);
          if (i % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 300));
        }
        assert.ok(
          accepted >= perMinute * 0.8 && accepted <= perMinute * 1.2,
          `${accepted} accepted (and ${limited} limited) for a limit of ${perMinute} a minute over ${count} instances`,
        );
      } finally {
        for (const instance of instances) await instance.stop();
      }
    });
  }
});
