/**
 * The deployment's instances (ids with the host name in them, versions, subscription counts) are the platform
 * operator's, not a tenant's (issue 32, finding 13a): no role of an organization can ask GraphQL for them, not even
 * a Manager, and no such role's introspection shows their types; only the Managers of the organizations that
 * PLATFORM_OPERATOR_ORGANIZATIONS names can (issue 18's query), and `thingdesk status` shows them on the command line
 * (test/cli/status.test.ts). A single SQLite process says it keeps no register.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOrganization } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../../helpers/databases.js';
import { assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { eventually } from '../../helpers/mqtt-clients.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

const query = `{ deployment { registered instances { id version startedAt heartbeatAt live broker consumerSlots uplinksInFlight
  consumerLagMs liveSubscriptions leases } } }`;
const refusedField = /Cannot query field "deployment"/;

describe('deployment query without platform operators', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp();
  });
  after(() => server?.stop());

  test('no role of an organization may ask for the deployment, a Manager included', async () => {
    for (const role of ['Manager', 'Installer', 'Viewer'] as const) {
      const user = await signInAs(server, role);
      assertGraphqlError(await user.client.request(query), 'BAD_USER_INPUT', refusedField);
    }
  });

  test("a Manager's introspection shows neither the query nor its types", async () => {
    const manager = await signInAs(server, 'Manager');
    const schema = dataOf(await manager.client.request('{ __schema { queryType { fields { name } } types { name } } }')).__schema;
    const fields = schema.queryType.fields.map((field: { name: string }) => field.name);
    const types = schema.types.map((type: { name: string }) => type.name);
    assert.ok(!fields.includes('deployment'));
    assert.ok(!types.includes('Deployment') && !types.includes('PlatformInstance'));
  });
});

describe('deployment query with PLATFORM_OPERATOR_ORGANIZATIONS', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp({ PLATFORM_OPERATOR_ORGANIZATIONS: 'acme' });
    await createOrganization({ store: server.app.store, clock: server.app.clock }, { name: 'Tenant', id: 'tenant' });
  });
  after(() => server?.stop());

  test("the operator organization's Managers see it (one SQLite process: no register); its other roles and other organizations' Managers do not", async () => {
    const operator = await signInAs(server, 'Manager');
    assert.deepEqual(dataOf(await operator.client.request(query)).deployment, { registered: false, instances: [] });
    // Everything else a Manager may do stays: the operator's schema is the Manager's plus the deployment.
    assert.ok(dataOf(await operator.client.request('{ users { email } }')).users.length >= 1);
    const viewer = await signInAs(server, 'Viewer');
    assertGraphqlError(await viewer.client.request(query), 'BAD_USER_INPUT', refusedField);
    const tenant = await signInAs(server, 'Manager', { organizationId: 'tenant', organizationName: 'Tenant' });
    assertGraphqlError(await tenant.client.request(query), 'BAD_USER_INPUT', refusedField);
  });
});

describe('deployment query on PostgreSQL', { skip: postgresSkipReason }, () => {
  test("every live instance is listed to an operator's Manager, with its leases and broker, and no host", { timeout: 60_000 }, async () => {
    const databaseUrl = await createPostgresUrl();
    const instances: TestApp[] = [];
    try {
      for (const name of ['dep-a', 'dep-b']) {
        instances.push(await startTestApp({ DATABASE_URL: databaseUrl, MQTT_CLIENT_ID: name, PLATFORM_OPERATOR_ORGANIZATIONS: 'acme' }));
      }
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
