/**
 * TUIDs never collide with routes (issue 19): a TUID equal to a fixed REST path segment where a TUID goes is
 * refused wherever a thing is first claimed (REST, GraphQL, uplinks), derived from the route table.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reservedTuidsOf, restRoutePaths } from '../../src/http/route-table.js';
import { cleanupStores } from '../helpers/databases.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

test('the reserved TUIDs are the fixed segments beside a :tuid, including any route added later', () => {
  const paths = [
    '/api/v1/things',
    '/api/v1/things/:tuid',
    '/api/v1/things/alerts',
    '/api/v1/things/alerts/count',
    '/api/v1/things/:tuid/group',
    '/api/v1/groups/:groupid',
  ];
  assert.deepEqual([...reservedTuidsOf(paths)], ['alerts']);
  assert.deepEqual([...reservedTuidsOf([...paths, '/api/v1/things/export', '/api/v1/things/:tuid/alerts'])].sort(), ['alerts', 'export']);
  assert.deepEqual([...reservedTuidsOf(['/api/v1/groups/:groupid', '/api/v1/groups/unassigned'])], [], 'only TUID positions count');
});

describe('reserved TUIDs on a running platform', () => {
  let server: TestApp;
  let rest: RestClient;
  let graphql: GraphqlClient;
  let reserved: string[];
  before(async () => {
    server = await startTestApp();
    rest = new RestClient(server);
    graphql = new GraphqlClient(server);
    await graphql.login();
    reserved = [...server.app.reservedTuids];
  });
  after(() => server?.stop());

  test('walking the route table: every fixed segment beside a :tuid is reserved, `alerts` today', async () => {
    const paths = await restRoutePaths(server.config);
    assert.ok(paths.includes(`${server.config.restBasePath}/things/:tuid`), paths.join(' '));
    assert.deepEqual(reserved, [...reservedTuidsOf(paths)]);
    assert.ok(reserved.includes('alerts'), reserved.join());
    for (const path of paths.filter((p) => p.split('/').includes(':tuid'))) {
      const position = path.split('/').indexOf(':tuid');
      for (const segment of reserved) {
        const concrete = path
          .split('/')
          .map((part, i) => (i === position ? segment : part.startsWith(':') ? 'x' : part))
          .join('/');
        const route =
          server.app.http.findRoute({ method: 'GET', url: concrete }) ?? server.app.http.findRoute({ method: 'POST', url: concrete });
        // Where a fixed route answers in place of the :tuid one, a thing with that TUID would be unreachable.
        if (route && (route.params as Record<string, string>).tuid !== segment) assert.ok(reserved.includes(segment));
      }
    }
  });

  test('REST: claiming a reserved TUID is 400 naming tuid, nothing is created; a TUID merely containing it is fine', async () => {
    for (const tuid of reserved) {
      for (const [what, response] of [
        ['installations', await rest.post(`/things/${tuid}/installations`, { installation_status: 'new' })],
        ['group', await rest.post(`/things/${tuid}/group`, { group_id: 'unassigned' })],
      ] as const) {
        assert.equal(response.status, 400, `${what}: ${response.text}`);
        assert.equal(response.body.code, 'VALIDATION_FAILED');
        assert.equal(response.body.errors[0].field, 'tuid');
        assert.match(response.body.message, new RegExp(`^tuid ${tuid} is reserved: the API uses it as a fixed path segment`));
      }
      assert.equal(await server.app.store.things.get(tuid), undefined, 'nothing was claimed');
    }
    assert.equal((await rest.post('/things/alerts-1/installations', { installation_status: 'new' })).status, 200);
    assert.equal(
      (await rest.post('/things/Alerts/group', { group_id: 'unassigned' })).status,
      200,
      'paths are case-sensitive, so is the rule',
    );
    assert.equal((await rest.get('/things/Alerts')).body.data.tuid, 'Alerts');
  });

  test('GraphQL: setInstallationStatus and assignThingToGroup refuse a reserved TUID with BAD_USER_INPUT', async () => {
    for (const operation of [
      'mutation { setInstallationStatus(tuid: "alerts", status: "new") { tuid } }',
      'mutation { assignThingToGroup(tuid: "alerts", groupId: "unassigned") { tuid } }',
    ]) {
      const response = await graphql.request(operation);
      assert.equal(response.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', JSON.stringify(response.body));
      assert.match(response.body.errors?.[0]?.message ?? '', /^tuid alerts is reserved/);
    }
    assert.equal(await server.app.store.things.get('alerts'), undefined);
    const fine = await graphql.request('mutation { setInstallationStatus(tuid: "GQ-ALERTS", status: "new") { tuid } }');
    assert.equal(fine.body.errors, undefined, JSON.stringify(fine.body));
  });

  test('an uplink for a reserved TUID is dead-lettered with the reason; the rest of the payload is stored', async () => {
    await publishUplinks(server, [
      { tsmId: 1112, tsmEv: 10, tsmTs: 1_700_000_000, tsmTuid: 'alerts', uptime: 1 },
      { tsmId: 1112, tsmEv: 10, tsmTs: 1_700_000_000, tsmTuid: 'UP-ALERTS', uptime: 1 },
    ]);
    assert.equal(await server.app.store.things.get('alerts'), undefined);
    assert.equal((await rest.get('/things/UP-ALERTS')).status, 200);
    const letters = await server.app.store.deadLetters.list({ organizationId: 'acme', limit: 50 });
    const letter = letters.find((d) => d.reason.startsWith('tsmTuid alerts is reserved'));
    assert.ok(letter, JSON.stringify(letters.map((d) => d.reason)));
    assert.equal(JSON.parse(letter.payload).tsmTuid, 'alerts');
    assert.equal(letter.source, 'uplink via gateway GW-1');
  });
});
