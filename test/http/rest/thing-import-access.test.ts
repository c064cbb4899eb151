/**
 * The import of things beyond its file format (SPEC section 12): GraphQL importThings for Managers only (a Viewer has
 * no import: not in its schema, and its token opens no REST), and an import racing single calls on the same things
 * leaves every thing consistent with its history.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { allowedNextStatuses } from '../../../src/domain/installations/installation-state-machine.js';
import type { InstallationStatus } from '../../../src/domain/things/thing-types.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { assertBadInput, dataOf, signInAs } from '../../helpers/graphql-users.js';
import { importFile, importTestServer } from './thing-import-helpers.js';

after(cleanupStores);

const importMutation =
  'mutation($content: String!, $format: ImportFormat!, $dryRun: Boolean) { importThings(content: $content, format: $format, dryRun: $dryRun) { dryRun applied counts { create update unchanged error } rows { row tuid action changes errors { field message } } } }';

for (const target of storeTargets) {
  describe(`import of things: access and races on ${target.name}`, { skip: target.skip }, () => {
    const context = importTestServer(target);

    test('GraphQL importThings for a Manager: plan, apply, BAD_USER_INPUT naming the bad rows; a Viewer has no import', async () => {
      const manager = await signInAs(context.server, 'Manager');
      const content = 'tuid,name\nGQ-1,first\nGQ-2,second\n';
      const planned = dataOf(await manager.client.request(importMutation, { content, format: 'CSV', dryRun: true })).importThings;
      assert.deepEqual(planned.counts, { create: 2, update: 0, unchanged: 0, error: 0 });
      assert.equal(planned.applied, false);
      const applied = dataOf(await manager.client.request(importMutation, { content, format: 'CSV' })).importThings;
      assert.equal(applied.applied, true);
      assert.equal((await context.rest.get('/things/GQ-2')).body.data.name, 'second');
      assertBadInput(
        await manager.client.request(importMutation, { content: '{"tuid":"GQ-3","installation_status":"x"}', format: 'NDJSON' }),
        ['rows[1].installation_status'],
      );
      const viewer = await signInAs(context.server, 'Viewer');
      const refused = await viewer.client.request(importMutation, { content, format: 'CSV' });
      assert.match(JSON.stringify(refused.body.errors), /importThings|ImportFormat/);
      const installer = await signInAs(context.server, 'Installer');
      assert.ok((await installer.client.request(importMutation, { content, format: 'CSV' })).body.errors);
      const rest = await fetch(context.server.url(`${context.server.config.restBasePath}/things/import?dry_run=true`), {
        method: 'POST',
        headers: { authorization: `Bearer ${viewer.client.accessToken}`, 'content-type': 'text/csv' },
        body: content,
      });
      assert.equal(rest.status, 401, 'REST takes API client tokens only: a user token is refused');
    });

    test('an import and single calls racing on the same things leave each thing as its history says', async () => {
      const tuids = Array.from({ length: 40 }, (_, i) => `RACE-${String(i).padStart(2, '0')}`);
      assert.equal((await importFile(context, `tuid\n${tuids.join('\n')}\n`)).status, 200);
      const file = `tuid,name,installation_status\n${tuids.map((t) => `${t},imported,installed`).join('\n')}\n`;
      const singles = tuids.map((tuid, i) =>
        context.rest.post(`/things/${tuid}/installations`, { installation_status: i % 2 === 0 ? 'quarantine' : 'retired' }),
      );
      const [imported, ...answers] = await Promise.all([importFile(context, file), ...singles]);
      assert.ok([200, 400, 409].includes(imported.status), imported.text);
      for (const answer of answers) assert.ok([200, 409].includes(answer.status), answer.text);
      for (const tuid of tuids) {
        const thing = (await context.rest.get(`/things/${tuid}`)).body.data;
        const history = (
          (await context.rest.get(`/things/${tuid}/installations`)).body.data as { installation_status: InstallationStatus }[]
        )
          .map((e) => e.installation_status)
          .reverse();
        assert.equal(history.at(-1), thing.installation_status, `${tuid}: status is the newest history entry`);
        assert.equal(history[0], 'new');
        for (let i = 1; i < history.length; i += 1) {
          assert.ok(
            allowedNextStatuses(history[i - 1]!).includes(history[i]!),
            `${tuid}: ${history.join(' > ')} follows the state machine`,
          );
        }
        if (imported.status === 200) assert.equal(thing.name, 'imported', 'an applied import applied every row');
        else assert.equal(thing.name, null, 'a refused import applied no row');
      }
    });
  });
}
