/**
 * Instances on one PostgreSQL store follow each other's events (issue 18): a session ended on one ends its live
 * streams on another at once (not at the next periodic check), and an alert opened by one reaches subscriptions
 * held on another, once (test/domain/event-bus.test.ts: relayed events never reach the side effects, so the
 * feeds publish once, where the event happened).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../helpers/databases.js';
import { closedWithin } from '../helpers/live-socket.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';
import { liveSocket, signedInInstaller } from '../http/graphql/live-stream-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const alerts = 'subscription { alerts { tuid alertType state } }';

describe('events across instances on one PostgreSQL store', { skip: postgresSkipReason }, () => {
  test(
    'logout on one instance closes the stream held on another at once; an alert opened on one arrives on the other once',
    { timeout: 60_000 },
    async () => {
      const databaseUrl = await createPostgresUrl();
      // A periodic session check far away: only the relay can close the stream in time.
      const env = { DATABASE_URL: databaseUrl, GRAPHQL_SESSION_RECHECK_S: '3600' };
      const instances: TestApp[] = [];
      try {
        instances.push(await startTestApp(env), await startTestApp(env));
        const [a, b] = instances as [TestApp, TestApp];

        const { client } = await signedInInstaller(a);
        const onB = await liveSocket(b, client.accessToken!);
        onB.subscribe('alerts', alerts);
        await new Promise((resolve) => setTimeout(resolve, 200));

        // A low battery reported through A's broker: A stores it and its engine opens the alert.
        await publishUplinks(a, [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'RELAY-1', batl: 5 }]);
        await onB.waitUntil(() => onB.of('alerts').length >= 1);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const received = onB.of('alerts').map((message) => (message.payload as { data: { alerts: unknown } }).data.alerts);
        assert.deepEqual(received, [{ tuid: 'RELAY-1', alertType: 'battery low', state: 'opened' }], 'once, from the other instance');

        const logout = await client.request('mutation { logout { success } }');
        assert.equal(logout.body.data?.logout?.success, true);
        const closed = await closedWithin(onB, 2000);
        assert.equal(closed?.code, 4401, 'the stream on the other instance closed within 2 s');
      } finally {
        for (const instance of instances) await instance.stop();
      }
    },
  );
});
