/**
 * A refused request names every bad field once, in words (issue 12 item 16): whether a schema or a domain rule
 * refused it, whether it is in the path, the query or the body, and never with the schema library's wording for
 * nullable fields ("must be null", "must match a schema in anyOf").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../helpers/databases.js';
import { RestClient, type RestResponse } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

interface Case {
  what: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  fields: string[];
  auth?: false;
}

const long = 'd'.repeat(2000);
const schemaNoise = /must be null|anyOf|oneOf|must match|must NOT|schema|must be (string|integer|number|object|array|boolean)$/;

const refused: Case[] = [
  {
    what: 'create: id with a space, description too long',
    method: 'POST',
    path: '/groups',
    body: { group_id: 'has space', group_description: long },
    fields: ['group_id', 'group_description'],
  },
  {
    what: 'create: reserved id, description of the wrong type',
    method: 'POST',
    path: '/groups',
    body: { group_id: 'Unassigned', group_description: 5 },
    fields: ['group_id', 'group_description'],
  },
  {
    what: 'create: id missing, unknown field',
    method: 'POST',
    path: '/groups',
    body: { group_description: 'x', colour: 'red' },
    fields: ['group_id', 'colour'],
  },
  {
    what: 'rename: bad path id and bad new id',
    method: 'POST',
    path: '/groups/a%20b/rename',
    body: { group_id: 'x/y' },
    fields: ['groupid', 'group_id'],
  },
  {
    what: 'rename: new id too long, unknown field',
    method: 'POST',
    path: '/groups/valid-group/rename',
    body: { group_id: 'g'.repeat(65), note: 1 },
    fields: ['group_id', 'note'],
  },
  {
    what: 'assign: bad tuid and bad group',
    method: 'POST',
    path: '/things/bad%20tuid/group',
    body: { group_id: 'a#b' },
    fields: ['tuid', 'group_id'],
  },
  {
    what: 'installation: bad tuid and unknown status',
    method: 'POST',
    path: '/things/bad%20tuid/installations',
    body: { installation_status: 'broken' },
    fields: ['tuid', 'installation_status'],
  },
  {
    what: 'installation: status of the wrong type, unknown field',
    method: 'POST',
    path: '/things/V-1/installations',
    body: { installation_status: 3, note: 'x' },
    fields: ['installation_status', 'note'],
  },
  {
    what: 'commands: several bad fields over two commands',
    method: 'POST',
    path: '/things/V-1/commands',
    body: [
      { tsmId: 1500, tsmEv: 'x', transactionId: 1.5, measurementInterval: 60, reportInterval: 300 },
      { tsmId: 1500, tsmEv: 30, transactionId: 2, measurementInterval: 0, reportInterval: 300, colour: 'red' },
    ],
    fields: ['commands[0].tsmEv', 'commands[0].transactionId', 'commands[1].measurementInterval', 'commands[1].colour'],
  },
  {
    what: 'client token: empty id, secret of the wrong type',
    method: 'POST',
    path: '/auth/client-token',
    body: { client_id: '', client_secret: 5 },
    fields: ['client_id', 'client_secret'],
    auth: false,
  },
  {
    what: 'messages: bad tuid, limit and id list',
    method: 'GET',
    path: '/things/bad%20tuid/messages?limit=x&messageid=a,b',
    fields: ['tuid', 'limit', 'messageid'],
  },
  {
    what: 'messages: limit missing, from not a number',
    method: 'GET',
    path: '/things/V-1/messages?from=yesterday',
    fields: ['limit', 'from'],
  },
  {
    what: 'things: limit, status and q',
    method: 'GET',
    path: `/things?limit=0&installation_status=gone&q=${'q'.repeat(65)}`,
    fields: ['limit', 'installation_status', 'q'],
  },
  { what: 'groups: limit and q', method: 'GET', path: '/groups?limit=5000&q=%00', fields: ['limit', 'q'] },
  {
    what: 'installation history: bad tuid and limit',
    method: 'GET',
    path: '/things/bad%20tuid/installations?limit=-1',
    fields: ['tuid', 'limit'],
  },
  { what: 'alerts: from and to', method: 'GET', path: '/things/V-1/alerts?from=-5&to=soon', fields: ['from', 'to'] },
  { what: 'group things: bad group id', method: 'GET', path: '/groups/a%2Bb/things', fields: ['groupid'] },
];

const accepted: Omit<Case, 'fields'>[] = [
  { what: 'create', method: 'POST', path: '/groups', body: { group_id: 'fresh-group', group_description: 'd'.repeat(1024) } },
  { what: 'create without description', method: 'POST', path: '/groups', body: { group_id: 'plain-group', group_description: null } },
  { what: 'rename', method: 'POST', path: '/groups/fresh-group/rename', body: { group_id: 'renamed-group' } },
  { what: 'assign', method: 'POST', path: '/things/V-1/group', body: { group_id: 'renamed-group' } },
  { what: 'unassign', method: 'POST', path: '/things/V-1/group', body: { group_id: 'unassigned' } },
  { what: 'installation', method: 'POST', path: '/things/V-1/installations', body: { installation_status: 'installed' } },
  {
    what: 'commands',
    method: 'POST',
    path: '/things/V-1/commands',
    body: [{ tsmId: 1500, tsmEv: 30, transactionId: 7, measurementInterval: 60, reportInterval: 300 }],
  },
  { what: 'messages', method: 'GET', path: '/things/V-1/messages?limit=5&messageid=1112&from=0' },
  { what: 'things', method: 'GET', path: '/things?limit=10&installation_status=installed&q=V' },
  { what: 'groups', method: 'GET', path: '/groups?limit=5&q=group' },
  { what: 'group things', method: 'GET', path: '/groups/unassigned/things' },
  { what: 'alerts', method: 'GET', path: '/things/V-1/alerts?from=0&to=2000000000' },
];

describe('validation errors name every bad field once, in words', () => {
  let server: TestApp;
  let rest: RestClient;
  before(async () => {
    server = await startTestApp();
    rest = new RestClient(server);
    await publishUplinks(server, [{ tsmId: 1112, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'V-1', uptime: 1 }]);
    assert.equal((await rest.post('/groups', { group_id: 'valid-group' })).status, 200);
  });
  after(() => server?.stop());

  const send = (
    c: Omit<Case, 'fields'>,
  ): Promise<RestResponse<{ code: string; message: string; errors: { field: string; message: string }[] }>> =>
    rest.request(c.method, c.path, { body: c.body, auth: c.auth });

  for (const c of refused) {
    test(`${c.what}: 400 naming ${c.fields.join(', ')}`, async () => {
      const response = await send(c);
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.code, 'VALIDATION_FAILED', response.text);
      const errors = response.body.errors;
      assert.deepEqual(errors.map((e) => e.field).sort(), [...c.fields].sort(), response.text);
      for (const error of errors) {
        assert.ok(error.message.startsWith(`${error.field} `), `message names its field: ${error.message}`);
        assert.doesNotMatch(error.message, schemaNoise, error.message);
      }
      for (const field of c.fields) assert.ok(response.body.message.includes(field), `summary names ${field}: ${response.body.message}`);
    });
  }

  test('valid requests to the same endpoints still succeed', async () => {
    for (const c of accepted) {
      const response = await send(c);
      assert.equal(response.status, 200, `${c.what}: ${response.text}`);
    }
  });
});
