import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiClient, createOrganization } from '../../src/domain/identity/identity-service.js';
import { cleanupStores } from '../helpers/databases.js';
import { RestClient, type RestResponse } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

/**
 * OWASP API1 (broken object level authorization), for every REST endpoint that names an object: another
 * organization's thing or group answers exactly like an unknown one (same status, same body apart from the id in
 * the message), and a write through it changes nothing.
 */
describe('object-level authorization across organizations (REST)', () => {
  let server: TestApp;
  let owner: RestClient;
  let rival: RestClient;
  before(async () => {
    server = await startTestApp();
    owner = new RestClient(server);
    await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'OWNED-1', batl: 50 }]);
    assert.equal((await owner.post('/groups', { group_id: 'owned-group' })).status, 200);
    assert.equal((await owner.post('/things/OWNED-1/group', { group_id: 'owned-group' })).status, 200);
    const deps = { store: server.app.store, clock: server.app.clock };
    await createOrganization(deps, { name: 'Rival', id: 'rival' });
    const client = await createApiClient(deps, { organizationId: 'rival', name: 'rival' });
    rival = new RestClient(server, { client_id: client.client.clientId, client_secret: client.clientSecret });
  });
  after(() => server?.stop());

  const command = [{ tsmId: 1500, tsmEv: 30, transactionId: 1, measurementInterval: 60, reportInterval: 300 }];
  // `claims`: on a thing nobody owns, these writes create it for the caller (SPEC section 3), so there is no
  // "unknown" answer to compare with; another organization's thing must still answer 404 and stay unchanged.
  const cases: { name: string; claims?: boolean; call: (client: RestClient, thing: string, group: string) => Promise<RestResponse> }[] = [
    { name: 'GET /things/{tuid}', call: (c, t) => c.get(`/things/${t}`) },
    { name: 'GET /things/{tuid}/messages', call: (c, t) => c.get(`/things/${t}/messages?limit=10`) },
    { name: 'GET /things/{tuid}/messages/export', call: (c, t) => c.get(`/things/${t}/messages/export?format=csv`) },
    { name: 'GET /groups/{id}/messages/export', call: (c, _t, g) => c.get(`/groups/${g}/messages/export`) },
    { name: 'GET /things/{tuid}/series', call: (c, t) => c.get(`/things/${t}/series?tsmId=12100&field=temp&from=0&to=100000`) },
    { name: 'GET /groups/{id}/series', call: (c, _t, g) => c.get(`/groups/${g}/series?tsmId=12100&field=temp&from=0&to=100000`) },
    { name: 'POST /things/{tuid}/commands', call: (c, t) => c.post(`/things/${t}/commands`, command) },
    { name: 'GET /things/{tuid}/commands', call: (c, t) => c.get(`/things/${t}/commands`) },
    { name: 'GET /things/{tuid}/alerts', call: (c, t) => c.get(`/things/${t}/alerts`) },
    {
      name: 'POST /things/{tuid}/installations',
      claims: true,
      call: (c, t) => c.post(`/things/${t}/installations`, { installation_status: 'retired' }),
    },
    { name: 'GET /things/{tuid}/installations', call: (c, t) => c.get(`/things/${t}/installations`) },
    { name: 'POST /things/{tuid}/group', claims: true, call: (c, t) => c.post(`/things/${t}/group`, { group_id: 'unassigned' }) },
    { name: 'GET /things/{tuid}/group', call: (c, t) => c.get(`/things/${t}/group`) },
    { name: 'GET /groups/{id}/things', call: (c, _t, g) => c.get(`/groups/${g}/things`) },
    { name: 'POST /groups/{id}/rename', call: (c, _t, g) => c.post(`/groups/${g}/rename`, { group_id: `${g}-renamed` }) },
    { name: 'DELETE /groups/{id}', call: (c, _t, g) => c.delete(`/groups/${g}`) },
  ];

  for (const { name, claims, call } of cases) {
    test(`${name}: another organization's object answers like an unknown one and stays unchanged`, async () => {
      const before = await snapshot();
      const foreign = await call(rival, 'OWNED-1', 'owned-group');
      assert.equal(foreign.status, 404, foreign.text);
      if (claims) {
        assert.deepEqual(foreign.body, { statusCode: 404, error: 'Not Found', message: 'No thing OWNED-1.', code: 'NOT_FOUND' });
      } else {
        const unknown = await call(rival, 'NO-SUCH-THING', 'no-such-group');
        assert.equal(unknown.status, 404, unknown.text);
        const normalize = (body: { message?: string }) => ({
          ...body,
          message: body.message?.replace(/OWNED-1|NO-SUCH-THING|owned-group|no-such-group/g, 'X'),
        });
        assert.deepEqual(normalize(foreign.body as { message?: string }), normalize(unknown.body as { message?: string }));
      }
      assert.deepEqual(await snapshot(), before, 'nothing of the owner changed');
    });
  }

  test("lists never show another organization's objects", async () => {
    assert.deepEqual((await rival.get('/things')).body.data.things, []);
    const groups = (await rival.get('/groups')).body.data.map((g: { group_id: string }) => g.group_id);
    assert.deepEqual(groups, ['unassigned']);
    assert.deepEqual((await rival.get('/things/alerts')).body.data.alerting_tuids, []);
  });

  async function snapshot() {
    const thing = await owner.get('/things/OWNED-1');
    const history = await owner.get('/things/OWNED-1/installations');
    const commands = await owner.get('/things/OWNED-1/commands');
    const groups = await owner.get('/groups');
    return { thing: thing.body, history: history.body, commands: commands.body, groups: groups.body };
  }
});
