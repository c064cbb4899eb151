/**
 * Query strings and path parameters are read as plain text (issue 12 item 14 e-f): an integer is decimal digits
 * within ±(2^53 - 1), never `0x10`, ` 1` or `1e1` coerced into a number; no parameter holds a control character
 * (`q=%00` matched everything).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../helpers/databases.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

describe('query strings and path parameters are plain text', () => {
  let server: TestApp;
  let rest: RestClient;
  before(async () => {
    server = await startTestApp();
    rest = new RestClient(server);
    await publishUplinks(server, [{ tsmId: 1112, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'Q-1', uptime: 1 }]);
    assert.equal((await rest.post('/groups', { group_id: 'query-group' })).status, 200);
  });
  after(() => server?.stop());

  async function assertRefused(path: string, field: string) {
    const response = await rest.get(path);
    assert.equal(response.status, 400, `${path}: ${response.text}`);
    assert.equal(response.body.code, 'VALIDATION_FAILED', path);
    assert.deepEqual(
      response.body.errors.map((e: { field: string }) => e.field),
      [field],
      `${path}: ${response.text}`,
    );
  }

  test('an integer parameter must be written in decimal digits (with an optional minus)', async () => {
    for (const value of ['0x10', '%201', '1%20', '1e1', '%2B1', '1.0', '0b1', '', 'Infinity']) {
      await assertRefused(`/groups?limit=${value}`, 'limit');
      await assertRefused(`/things/Q-1/messages?limit=${value}`, 'limit');
      await assertRefused(`/things/Q-1/commands?limit=${value}`, 'limit');
    }
    await assertRefused('/things/Q-1/messages?limit=5&from=0x10', 'from');
    await assertRefused('/things/Q-1/alerts?to=1e9', 'to');
    await assertRefused('/catalog/0x5DC', 'tsmId');
    for (const path of [
      '/groups?limit=10',
      '/groups?limit=010',
      '/things/Q-1/messages?limit=5&from=0&to=2000000000',
      '/things/Q-1/commands?limit=0',
      '/catalog/1500',
    ]) {
      assert.equal((await rest.get(path)).status, 200, path);
    }
  });

  test('an integer parameter beyond ±(2^53 - 1) is refused, not rounded', async () => {
    await assertRefused('/things/Q-1/messages?limit=5&from=99999999999999999999', 'from');
    await assertRefused('/things/Q-1/commands?limit=9007199254740993', 'limit');
  });

  test('a control character in a text parameter is a 400 naming it', async () => {
    for (const c of ['%00', '%01', '%09', '%0A', '%1F', '%7F']) {
      await assertRefused(`/groups?q=${c}`, 'q');
      await assertRefused(`/groups?q=query${c}`, 'q');
      await assertRefused(`/things?q=${c}`, 'q');
      await assertRefused(`/things?group_id=query-group${c}`, 'group_id');
      await assertRefused(`/things?cursor=abc${c}`, 'cursor');
    }
    const plain = await rest.get('/groups?q=query');
    assert.deepEqual(
      plain.body.data.map((g: { group_id: string }) => g.group_id),
      ['query-group'],
    );
    // Text beyond ASCII is not a control character.
    assert.equal((await rest.get('/groups?q=%C3%A9%E2%82%AC')).status, 200);
  });
});
