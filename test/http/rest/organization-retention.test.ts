/**
 * Retention settings of an organization (SPEC section 9): read by any signed-in caller (REST `GET /organization`,
 * GraphQL `organization { retention }`), set by a Manager (GraphQL `setRetention`, `thingdesk org retention`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { assertBadInput, assertGraphqlError, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { runThingdesk } from '../../helpers/run-cli.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

const setRetention =
  'mutation S($m: Int, $r: Int) { setRetention(messageRetentionDays: $m, rollupRetentionDays: $r) { messageRetentionDays rollupRetentionDays messageRetentionOverride rollupRetentionOverride } }';
const readRetention =
  '{ organization { id retention { messageRetentionDays rollupRetentionDays messageRetentionOverride rollupRetentionOverride } } }';

for (const target of storeTargets) {
  describe(`organization retention settings on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let manager: GraphqlClient;
    let rest: RestClient;
    let otherRest: RestClient;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl(), MESSAGE_RETENTION_DAYS: '400', ROLLUP_RETENTION_DAYS: '0' });
      manager = new GraphqlClient(server);
      await manager.login();
      rest = new RestClient(server);
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Other', id: 'other' });
      const other = await createApiClient(deps, { organizationId: 'other', name: 'other' });
      otherRest = new RestClient(server, { client_id: other.client.clientId, client_secret: other.clientSecret });
    });
    after(() => server?.stop());

    test('the defaults apply until a Manager sets the organization its own; REST and every role read them', async () => {
      const initial = await rest.request('GET', '/organization');
      assert.equal(initial.status, 200, initial.text);
      assert.deepEqual(initial.body, {
        data: {
          organization_id: 'acme',
          name: 'Acme',
          message_retention_days: 400,
          rollup_retention_days: 0,
          message_retention_override: null,
          rollup_retention_override: null,
          // An API client sees the channels, so it reads which ones the built-in alerts notify (none yet).
          alert_channels: {},
        },
      });
      const set = dataOf(await manager.request(setRetention, { m: 30, r: 730 })).setRetention;
      assert.deepEqual(set, {
        messageRetentionDays: 30,
        rollupRetentionDays: 730,
        messageRetentionOverride: 30,
        rollupRetentionOverride: 730,
      });
      const read = await rest.request<{ data: Record<string, unknown> }>('GET', '/organization');
      assert.equal(read.body.data.message_retention_days, 30);
      assert.equal(read.body.data.rollup_retention_override, 730);
      for (const role of ['Viewer', 'Installer'] as const) {
        const user = await signInAs(server, role);
        assert.deepEqual(dataOf(await user.client.request(readRetention)).organization.retention, set);
      }

      // One field left out is unchanged; null returns it to the default; 0 keeps forever.
      assert.deepEqual(dataOf(await manager.request(setRetention, { r: null })).setRetention, {
        messageRetentionDays: 30,
        rollupRetentionDays: 0,
        messageRetentionOverride: 30,
        rollupRetentionOverride: null,
      });
      assert.equal(dataOf(await manager.request(setRetention, { m: 0 })).setRetention.messageRetentionDays, 0);
    });

    test('another organization keeps its own settings (isolation)', async () => {
      await manager.request(setRetention, { m: 10 });
      const other = await otherRest.request<{ data: Record<string, unknown> }>('GET', '/organization');
      assert.equal(other.status, 200);
      assert.equal(other.body.data.organization_id, 'other');
      assert.equal(other.body.data.message_retention_days, 400);
      assert.equal(other.body.data.message_retention_override, null);
    });

    test('bad values are refused, each field named, and change nothing', async () => {
      await manager.request(setRetention, { m: 20, r: 20 });
      assertBadInput(await manager.request(setRetention, { m: -1 }), ['messageRetentionDays']);
      assertBadInput(await manager.request(setRetention, { m: 36_501, r: -5 }), ['messageRetentionDays', 'rollupRetentionDays']);
      const after = dataOf(await manager.request(readRetention)).organization.retention;
      assert.deepEqual([after.messageRetentionDays, after.rollupRetentionDays], [20, 20]);
      assert.equal(dataOf(await manager.request(setRetention, { m: 36_500 })).setRetention.messageRetentionDays, 36_500);
    });

    test('only a Manager may set retention: it is not in the schema of other roles', async () => {
      for (const role of ['Viewer', 'Installer'] as const) {
        const user = await signInAs(server, role);
        assertGraphqlError(
          await user.client.request(setRetention, { m: 1 }),
          'BAD_USER_INPUT',
          /^Cannot query field "setRetention" on type "Mutation"/,
        );
      }
      assert.notEqual(dataOf(await manager.request(readRetention)).organization.retention.messageRetentionDays, 1);
    });

    test('REST: without a token 401', async () => {
      const response = await rest.request('GET', '/organization', { auth: false });
      assert.equal(response.status, 401);
    });
  });

  describe(`thingdesk org retention on ${target.name}`, { skip: target.skip }, () => {
    let env: Record<string, string>;
    before(async () => {
      env = { DATABASE_URL: await target.createUrl(), MESSAGE_RETENTION_DAYS: '90' };
      assert.equal((await runThingdesk(['org', 'create', '--name', 'Acme', '--id', 'acme'], env)).code, 0);
      assert.equal((await runThingdesk(['org', 'create', '--name', 'Beta', '--id', 'beta'], env)).code, 0);
    });

    test("shows, sets and resets an organization's retention; the other organization is untouched", async () => {
      const shown = await runThingdesk(['org', 'retention', '--org', 'acme', '--json'], env);
      assert.equal(shown.code, 0, shown.stderr);
      assert.deepEqual(JSON.parse(shown.stdout), {
        organizationId: 'acme',
        messageRetentionDays: 90,
        rollupRetentionDays: 0,
        messageRetentionOverride: null,
        rollupRetentionOverride: null,
      });
      const set = await runThingdesk(['org', 'retention', '--org', 'acme', '--messages-days', '7', '--rollups-days', '365', '--json'], env);
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(JSON.parse(set.stdout), {
        organizationId: 'acme',
        messageRetentionDays: 7,
        rollupRetentionDays: 365,
        messageRetentionOverride: 7,
        rollupRetentionOverride: 365,
      });
      const reset = await runThingdesk(['org', 'retention', '--org', 'acme', '--messages-days', 'default', '--json'], env);
      assert.equal(JSON.parse(reset.stdout).messageRetentionOverride, null);
      assert.equal(JSON.parse(reset.stdout).rollupRetentionDays, 365);
      const beta = await runThingdesk(['org', 'retention', '--org', 'beta', '--json'], env);
      assert.equal(JSON.parse(beta.stdout).rollupRetentionOverride, null);
    });

    test('bad values are named by their option and change nothing; an unknown organization fails', async () => {
      await runThingdesk(['org', 'retention', '--org', 'beta', '--messages-days', '5'], env);
      const bad = await runThingdesk(['org', 'retention', '--org', 'beta', '--messages-days', 'ten', '--rollups-days', '36501'], env);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /--messages-days: --messages-days must be a whole number of days/);
      assert.match(bad.stderr, /--rollups-days: --rollups-days must be a whole number of days/);
      const beta = await runThingdesk(['org', 'retention', '--org', 'beta', '--json'], env);
      assert.equal(JSON.parse(beta.stdout).messageRetentionDays, 5);
      const ghost = await runThingdesk(['org', 'retention', '--org', 'ghost', '--messages-days', '5'], env);
      assert.equal(ghost.code, 1);
      assert.match(ghost.stderr, /No such organization/);
    });
  });
}
