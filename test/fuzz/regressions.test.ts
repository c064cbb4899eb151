/**
 * Counterexamples the fuzz suites found (issue 8), kept as plain tests so they stay fixed whatever the seed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../helpers/databases.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { closeMqttClients, connectMqtt } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';
import { publishUplinks } from '../helpers/uplinks.js';
import { assertRestResponse } from './invariants.js';

after(cleanupStores);
after(closeMqttClients);

describe('fuzz regressions', () => {
  let server: TestApp;
  let rest: RestClient;
  let graphql: GraphqlClient;
  before(async () => {
    server = await startTestApp();
    rest = new RestClient(server);
    graphql = new GraphqlClient(server);
    await graphql.login();
  });
  after(() => server?.stop());

  const postGraphql = (body: string, headers: Record<string, string> = {}) =>
    fetch(server.url(server.config.graphqlPath), {
      method: 'POST',
      headers: { authorization: `Bearer ${graphql.accessToken}`, 'content-type': 'application/json', ...headers },
      body,
    });

  async function graphqlErrors(response: Response): Promise<{ status: number; codes: string[]; messages: string[]; type: string | null }> {
    const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] };
    return {
      status: response.status,
      codes: body.errors.map((e) => e.extensions.code),
      messages: body.errors.map((e) => e.message),
      type: response.headers.get('content-type'),
    };
  }

  test('REST: a path that is not valid percent-encoded UTF-8 is a 400 in the error shape (was fastify FST_ERR_BAD_URL)', async () => {
    for (const path of ['/things/%C0%AF', '/things/%FF/messages?limit=1', '/groups/%ED%A0%80/things']) {
      const response = await rest.get(path);
      assertRestResponse(response, path);
      assert.equal(response.status, 400, path);
      assert.equal(response.body.code, 'VALIDATION_FAILED', path);
      assert.deepEqual(
        response.body.errors.map((e: { field: string }) => e.field),
        ['url'],
      );
    }
  });

  test('REST: a path parameter over 256 characters is a 400 in the error shape (was a bare 414 FST_ERR_MAX_PARAM_LENGTH)', async () => {
    const response = await rest.get(`/things/${'x'.repeat(300)}`);
    assertRestResponse(response, 'long tuid');
    assert.equal(response.status, 400);
    assert.equal(response.body.code, 'VALIDATION_FAILED');
  });

  test('REST and GraphQL: a command with free fields nested thousands of levels deep is a 400 naming the field (was a 500)', async () => {
    const deep = `${'{"a":['.repeat(5000)}1${']}'.repeat(5000)}`;
    await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'DEEP-CMD', batl: 50 }]);
    const response = await rest.post('/things/DEEP-CMD/commands', undefined, {
      rawBody: `[{"tsmId":13200,"tsmEv":30,"transactionId":1,"x":${deep}}]`,
      headers: { 'content-type': 'application/json' },
    });
    assertRestResponse(response, 'deep command');
    assert.equal(response.status, 400);
    assert.deepEqual(
      response.body.errors.map((e: { field: string }) => e.field),
      ['commands[0].x'],
    );
    const viaGraphql = await postGraphql(
      `{"query":"mutation($c: [JSON!]!) { sendCommands(tuid: \\"DEEP-CMD\\", commands: $c) { tuid } }","variables":{"c":[{"tsmId":13200,"tsmEv":30,"transactionId":1,"x":${deep}}]}}`,
    );
    assert.deepEqual((await graphqlErrors(viaGraphql)).codes, ['BAD_USER_INPUT']);
    assert.deepEqual((await rest.get('/things/DEEP-CMD/commands')).body.data, []);
  });

  test('GraphQL: body errors are GraphQL errors with a code, not the REST problem body', async () => {
    assert.deepEqual(await graphqlErrors(await postGraphql('{"query":')), {
      status: 400,
      codes: ['BAD_USER_INPUT'],
      messages: ['The request body is not valid JSON.'],
      type: 'application/json; charset=utf-8',
    });
    const textPlain = await graphqlErrors(await postGraphql('{"query":"{ me { id } }"}', { 'content-type': 'text/plain' }));
    assert.deepEqual([textPlain.status, textPlain.codes], [415, ['BAD_USER_INPUT']]);
    const huge = await graphqlErrors(await postGraphql(JSON.stringify({ query: '{ me { id } }', pad: 'x'.repeat(1024 * 1024) })));
    assert.deepEqual([huge.status, huge.codes], [413, ['BAD_USER_INPUT']]);
  });

  test('GraphQL: JSON in another charset is a 415 with a coded error (graphql-http answered an empty body)', async () => {
    const latin1 = await graphqlErrors(
      await postGraphql('{"query":"{ me { id } }"}', { 'content-type': 'application/json; charset=latin1' }),
    );
    assert.deepEqual([latin1.status, latin1.codes, latin1.type], [415, ['BAD_USER_INPUT'], 'application/json; charset=utf-8']);
  });

  test('GraphQL: a mutation over GET is a 405 with Allow: POST and a coded JSON error (was text/plain without a code)', async () => {
    const query = encodeURIComponent('mutation { createGroup(groupId: "never-over-get") { groupId } }');
    const response = await fetch(`${server.url(server.config.graphqlPath)}?query=${query}`, {
      headers: { authorization: `Bearer ${graphql.accessToken}` },
    });
    assert.equal(response.headers.get('allow'), 'POST');
    assert.deepEqual((await graphqlErrors(response)).codes, ['BAD_USER_INPUT']);
    assert.equal(response.status, 405);
    assert.equal((await graphql.request('{ groups(q: "never-over-get") { groupId } }')).body.data.groups.length, 0);
  });

  test('GraphQL: a document nested too deeply to parse is BAD_USER_INPUT without the engine error (was "RangeError: Maximum call stack size exceeded")', async () => {
    const response = await graphql.request(`{ ${'me { '.repeat(5000)}id${' }'.repeat(5000)} }`);
    assert.equal(response.status, 400);
    assert.deepEqual(
      response.body.errors?.map((e) => e.extensions?.code),
      ['BAD_USER_INPUT'],
    );
    assert.doesNotMatch(response.body.errors?.[0]?.message ?? '', /RangeError|call stack/);
  });

  test('MQTT: an uplink nested deeper than JSON.stringify can write is acknowledged and dead-lettered (was never acknowledged, connection closed)', async () => {
    const gateway = await connectMqtt(server.mqttUrl, {
      username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
      password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
    });
    // Deep enough to overflow JSON.stringify, small enough for MQTT_MAX_PACKET_SIZE (256 KiB).
    const depth = 30_000;
    await gateway.publishAsync(
      'thingdesk/acme/up/GW-1',
      `[${'{"a":['.repeat(depth)}1${']}'.repeat(depth)},{"tsmId":1112,"tsmEv":10,"tsmTs":1790000000,"tsmTuid":"DEEP-OK","uptime":1}]`,
      { qos: 1 },
    );
    assert.ok(gateway.connected);
    const [letter] = await server.app.store.deadLetters.list({ organizationId: 'acme', limit: 1 });
    assert.equal(letter?.reason, 'message [0]: message is nested too deeply to store');
    assert.equal((await rest.get('/things/DEEP-OK')).status, 200, 'the readable message of the same payload is stored');
  });
});
