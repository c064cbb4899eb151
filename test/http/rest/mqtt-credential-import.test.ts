/**
 * POST /mqtt-credentials/import (SPEC section 12) on both stores: dry run, all or none, generated passwords
 * answered once (as CSV with Accept: text/csv) that work on the broker at once, existing and repeated usernames.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { connectAsync } from 'mqtt';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { testBootstrap } from '../../helpers/test-app.js';
import { importTestServer } from './thing-import-helpers.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`import of MQTT credentials on ${target.name}`, { skip: target.skip }, () => {
    const context = importTestServer(target);
    const post = (file: string, query = '', headers: Record<string, string> = {}) =>
      context.rest.request('POST', `/mqtt-credentials/import${query}`, {
        rawBody: file,
        headers: { 'content-type': 'text/csv', ...headers },
      });

    test('dry run plans; applied creates all, answers generated passwords once (CSV on request); they connect', async () => {
      const file = 'username,kind,password\nimp-gw-1,gateway,\nimp-feed-1,integration,given-password-123456\n';
      const planned = await post(file, '?dry_run=true');
      assert.equal(planned.status, 200, planned.text);
      assert.deepEqual(planned.body.data.counts, { create: 2, update: 0, unchanged: 0, error: 0 });
      assert.equal(planned.body.data.rows[0].password, undefined, 'a dry run generates nothing');
      const applied = await post(file, '', { accept: 'text/csv' });
      assert.equal(applied.status, 200, applied.text);
      assert.match(applied.headers.get('content-type')!, /^text\/csv/);
      const lines = applied.text.trim().split('\r\n');
      assert.equal(lines[0], 'row,username,kind,action,password');
      const [, username, kind, action, password] = lines[1]!.split(',');
      assert.deepEqual([username, kind, action], ['imp-gw-1', 'gateway', 'create']);
      assert.ok(password!.length >= 16, 'a generated password');
      assert.equal(lines[2], '3,imp-feed-1,integration,create,', 'a given password is not echoed');
      const client = await connectAsync(context.server.mqttUrl, { username: 'imp-gw-1', password, reconnectPeriod: 0 });
      await client.endAsync();
    });

    test('an existing or repeated username, a bad kind: error rows, nothing created', async () => {
      const file = `username,kind\nnew-gw-9,gateway\n${testBootstrap.BOOTSTRAP_MQTT_USERNAME},gateway\nrep-1,gateway\nrep-1,integration\nodd-1,printer\n`;
      const refused = await post(file);
      assert.equal(refused.status, 400, refused.text);
      assert.deepEqual(
        refused.body.errors.map((e: { field: string }) => e.field),
        ['rows[3].username', 'rows[5].username', 'rows[6].kind'],
      );
      const again = await post('username,kind\nnew-gw-9,gateway\n', '?dry_run=true');
      assert.equal(again.body.data.counts.create, 1, 'new-gw-9 was not created by the refused import');
      assert.equal((await post('username,colour\nx,red\n')).status, 400);
    });
  });
}
