/**
 * The Manager-only `deployment` query (issue 18): the instances of the deployment as the register in the store
 * shows them, with what each runs; a single SQLite process says it keeps no register; other roles cannot ask.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../../helpers/databases.js';
import { assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { eventually } from '../../helpers/mqtt-clients.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

const query = `{ deployment { registered instances { id version startedAt heartbeatAt live broker consumerSlots uplinksInFlight
  consumerLagMs liveSubscriptions leases } } }`;

describe('deployment query on SQLite', () => {
  test('a Manager learns that one process serves the store; a Viewer cannot ask', async () => {
    const server = await startTestApp();
    try {
      const manager = await signInAs(server, 'Manager');
      assert.deepEqual(dataOf(await manager.client.request(query)).deployment, { registered: false, instances: [] });
      const viewer = await signInAs(server, 'Viewer');
      assertGraphqlError(await viewer.client.request(query), 'BAD_USER_INPUT', /Cannot query field "deployment"/);
    } finally {
      await server.stop();
    }
  });
});

describe('deployment query on PostgreSQL', { skip: postgresSkipReason }, () => {
  test('every live instance is listed, with its leases and broker, and no host', { timeout: 60_000 }, async () => {
    const databaseUrl = await createPostgresUrl();
    const instances: TestApp[] = [];
    try {
      for (const name of ['dep-a', 'dep-b']) instances.push(await startTestApp({ DATABASE_URL: databaseUrl, MQTT_CLIENT_ID: name }));
      const manager = await signInAs(instances[1]!, 'Manager');
      const listed = await eventually(
        async () => {
          const deployment = dataOf(await manager.client.request(query)).deployment;
          return deployment.instances.length === 2 ? deployment : undefined;
        },
        15_000,
        'both instances registered',
      );
      assert.equal(listed.registered, true);
      const ids = instances.map((instance) => instance.app.instanceId).sort();
      assert.deepEqual(listed.instances.map((instance: { id: string }) => instance.id).sort(), ids);
      for (const instance of listed.instances) {
        assert.equal(instance.live, true);
        assert.equal(instance.broker, 'embedded');
        assert.deepEqual(instance.consumerSlots, []);
        assert.equal(instance.uplinksInFlight, null);
        assert.ok(instance.startedAt <= instance.heartbeatAt);
      }
      // The alert engine runs on one instance at a time: exactly one lists its lease.
      const engine = await eventually(
        async () => {
          const again = dataOf(await manager.client.request(query)).deployment.instances as { leases: string[] }[];
          const holders = again.filter((instance) => instance.leases.some((lease) => lease.includes('alert')));
          return holders.length === 1 ? holders : undefined;
        },
        15_000,
        'one alert engine lease holder',
      );
      assert.equal(engine.length, 1);
      const withHost = await manager.client.request('{ deployment { instances { host } } }');
      assertGraphqlError(withHost, 'BAD_USER_INPUT', /Cannot query field "host"/);
    } finally {
      for (const instance of instances) await instance.stop();
    }
  });
});
