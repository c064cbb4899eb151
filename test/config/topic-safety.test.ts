/**
 * Topic safety (issue 32 finding 7): a data-feed template whose topics can land on the platform's own topics, and an
 * organization id that names them, are refused. With `INTEGRATION_TOPIC={org}/{tuid}/{tsmId}`, an organization
 * slugged `thingdesk-cluster` was fed every organization's relayed uplinks; with `{org}/{group}/{tuid}/{tsmId}`,
 * one slugged `thingdesk` read another's uplinks and downlinks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { ConfigError } from '../../src/config/config-error.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { cleanupStores, createSqliteUrl } from '../helpers/databases.js';
import { runThingdesk } from '../helpers/run-cli.js';
import { startTestApp } from '../helpers/test-app.js';

after(cleanupStores);

const namesTheVariable = (error: unknown) =>
  error instanceof ConfigError && error.variable === 'INTEGRATION_TOPIC' && error.message.startsWith('INTEGRATION_TOPIC: ');

describe('INTEGRATION_TOPIC that can reach the platform topics', () => {
  test('the two templates of the finding stop the platform at start, naming INTEGRATION_TOPIC', async () => {
    for (const template of ['{org}/{tuid}/{tsmId}', '{org}/{group}/{tuid}/{tsmId}']) {
      await assert.rejects(startTestApp({ INTEGRATION_TOPIC: template }), namesTheVariable, template);
    }
  });

  const refused: [string, string][] = [
    ['{org}/{tuid}/{tsmId}', 'thingdesk-cluster/messages/+ with organization thingdesk-cluster'],
    ['{org}/{group}/{tuid}/{tsmId}', 'thingdesk/+/up/+ with organization thingdesk'],
    ['{org}/{group}/{tuid}', 'thingdesk/+/alerts and thingdesk-cluster/messages/+'],
    ['{org}/{tuid}', 'the thingdesk-cluster/ namespace'],
    ['thingdesk/{org}/{tuid}/{tsmId}', 'thingdesk/+/up/+ (tuid "up")'],
    ['thingdesk/{org}/down/{tuid}', 'the downlink topics'],
    ['thingdesk/{org}/alerts', 'the alert topic'],
    ['thingdesk-cluster/messages/{org}', 'the relay topic'],
    ['$SYS/{org}/{tuid}', 'a broker topic'],
    ['{group}/{org}/{tuid}', 'a $ topic for a group named $SYS'],
  ];
  for (const [template, why] of refused) {
    test(`${template} is refused (${why})`, () => {
      assert.throws(() => loadConfig({ INTEGRATION_TOPIC: template }), namesTheVariable);
    });
  }

  for (const template of [
    'thingdesk/{org}/data/{group}/{tuid}/{tsmId}',
    'cloudext/json/pr/fi/{org}/{group}/{tuid}/{tsmId}',
    'feeds/{org}/{tuid}',
    'thingdesk/{org}/data/{tuid}',
  ]) {
    test(`${template} is still accepted`, () => {
      assert.equal(loadConfig({ INTEGRATION_TOPIC: template }).integrationTopic, template);
    });
  }
});

describe('organization ids that name the platform topics', () => {
  test('the CLI refuses thingdesk and thingdesk-cluster as --id, naming --id, and creates nothing', async () => {
    const env = { DATABASE_URL: createSqliteUrl() };
    for (const id of ['thingdesk', 'thingdesk-cluster']) {
      const created = await runThingdesk(['org', 'create', '--name', `Org ${id}`, '--id', id], env);
      assert.equal(created.code, 1, created.stdout);
      assert.match(created.stderr, /--id.*reserved/);
    }
    const valid = await runThingdesk(['org', 'create', '--name', 'Thingdesk Fans', '--id', 'thingdesk-fans', '--json'], env);
    assert.equal(valid.code, 0, valid.stderr);
    assert.deepEqual(JSON.parse(valid.stdout), { organizationId: 'thingdesk-fans', name: 'Thingdesk Fans' });
    const listed = await runThingdesk(['org', 'create', '--name', 'Org thingdesk', '--id', 'org-thingdesk', '--json'], env);
    assert.equal(listed.code, 0, 'the refused attempt left no organization of that name behind');
  });

  test('a name whose slug is reserved gets another id, at bootstrap as everywhere; the domain refuses a reserved id', async () => {
    const server = await startTestApp({ BOOTSTRAP_ORG: 'thingdesk-cluster' });
    try {
      assert.equal(server.app.bootstrap?.organizationId, 'thingdesk-cluster-org');
      assert.equal(server.app.bootstrap?.organizationName, 'thingdesk-cluster');
      const deps = { store: server.app.store, clock: server.app.clock };
      await assert.rejects(
        createOrganization(deps, { name: 'Platform', id: 'thingdesk' }),
        (error: { code?: string; errors?: { field: string }[] }) => error.code === 'VALIDATION_FAILED' && error.errors?.[0]?.field === 'id',
      );
      assert.equal((await createOrganization(deps, { name: 'thingdesk' })).id, 'thingdesk-org');
    } finally {
      await server.stop();
    }
  });
});

describe('the default bootstrap organization', () => {
  let server: Awaited<ReturnType<typeof startTestApp>>;
  before(async () => {
    server = await startTestApp({ BOOTSTRAP_ORG: '' });
  });
  after(() => server.stop());

  test('keeps its name thingdesk (the sign-in name) under an id that is not a platform topic root', () => {
    assert.equal(server.app.bootstrap?.organizationName, 'thingdesk');
    assert.equal(server.app.bootstrap?.organizationId, 'thingdesk-org');
  });
});
