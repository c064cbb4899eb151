/**
 * POST /things/import (SPEC section 12) through the real server on both stores: the plan, dry run, all-or-none
 * apply, idempotence, the single calls' rules inside an import, RFC 4180 details, limits and isolation.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { testBootstrap } from '../../helpers/test-app.js';
import { actionsOf, importFile, importTestServer } from './thing-import-helpers.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`import of things on ${target.name}`, { skip: target.skip }, () => {
    const context = importTestServer(target);
    const get = (tuid: string) => context.rest.get(`/things/${tuid}`);

    test('a dry run answers the plan with row numbers (BOM, CRLF, quotes, a newline in a field, a trailing empty line) and changes nothing', async () => {
      assert.equal((await context.rest.post('/groups', { group_id: 'north' })).status, 200);
      const file =
        '\uFEFFtuid,name,group_id,installation_status,label.site\r\n' +
        'IMP-1,"Pump ""4"", boiler",north,installed,hel\r\n' +
        'IMP-2,"two\r\nlines",,,\r\n' +
        'IMP-3,,,,\r\n' +
        '\r\n';
      const planned = await importFile(context, file, 'dry_run=true');
      assert.equal(planned.status, 200, planned.text);
      assert.equal(planned.body.data.dry_run, true);
      assert.equal(planned.body.data.applied, false);
      assert.deepEqual(planned.body.data.counts, { create: 3, update: 0, unchanged: 0, error: 0 });
      assert.deepEqual(actionsOf(planned.body), [
        [2, 'IMP-1', 'create'],
        [3, 'IMP-2', 'create'],
        [5, 'IMP-3', 'create'],
      ]);
      assert.deepEqual(planned.body.data.rows[0].changes, {
        name: { from: null, to: 'Pump "4", boiler' },
        labels: { from: null, to: { site: 'hel' } },
        group_id: { from: null, to: 'north' },
        installation_status: { from: null, to: 'installed' },
      });
      assert.equal(planned.body.data.rows[1].changes.name.to, 'two\r\nlines');
      assert.equal((await get('IMP-1')).status, 404, 'a dry run claims nothing');
    });

    test('applied: things created as the single calls would (history by the caller); the same file again is all unchanged', async () => {
      const file = 'tuid,name,group_id,installation_status,label.site,label.room\nAP-1,Pump,north,installed,hel,1\nAP-2,,,quarantine,,\n';
      const applied = await importFile(context, file);
      assert.equal(applied.status, 200, applied.text);
      assert.equal(applied.body.data.applied, true);
      assert.deepEqual(applied.body.data.counts, { create: 2, update: 0, unchanged: 0, error: 0 });
      const thing = (await get('AP-1')).body.data;
      assert.deepEqual(
        [thing.name, thing.labels, thing.group_id, thing.installation_status],
        ['Pump', { room: '1', site: 'hel' }, 'north', 'installed'],
      );
      const history = (await context.rest.get('/things/AP-1/installations')).body.data;
      assert.deepEqual(
        history.map((e: { installation_status: string; responsible: string }) => [e.installation_status, e.responsible]),
        [
          ['installed', testBootstrap.BOOTSTRAP_CLIENT_ID],
          ['new', testBootstrap.BOOTSTRAP_CLIENT_ID],
        ],
      );
      const again = await importFile(context, file);
      assert.deepEqual(again.body.data.counts, { create: 0, update: 0, unchanged: 2, error: 0 });
      assert.equal((await context.rest.get('/things/AP-1/installations')).body.data.length, 2, 'no second history entry');
      const changedOnly = await importFile(context, 'tuid,name\nAP-1,Pump\nAP-2,Valve\n', 'dry_run=true&rows=changed');
      assert.deepEqual(changedOnly.body.data.counts, { create: 0, update: 1, unchanged: 1, error: 0 });
      assert.deepEqual(actionsOf(changedOnly.body), [[3, 'AP-2', 'update']]);
      assert.deepEqual(changedOnly.body.data.rows[0].changes, { name: { from: null, to: 'Valve' } });
    });

    test("one bad row applies nothing; every bad row is named rows[<row>].<column> with the single call's message", async () => {
      await context.rival.post('/things/RIVAL-1/installations', { installation_status: 'installed' });
      await context.rest.post('/things/RET-1/installations', { installation_status: 'retired' });
      const file = [
        'tuid,name,group_id,installation_status,label.site',
        'OK-1,fine,,,',
        'BAD-1,,no-such-group,,',
        'BAD-2,,,sideways,',
        'RET-1,,,installed,',
        'RIVAL-1,mine,,,',
        'OK-1,twice,,,',
        `BAD-3,${'x'.repeat(201)},,,`,
        `BAD-4,,,,${'v'.repeat(201)}`,
        'bad tuid,,,,',
      ].join('\n');
      const refused = await importFile(context, file);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.code, 'VALIDATION_FAILED');
      const byField = Object.fromEntries(refused.body.errors.map((e: { field: string; message: string }) => [e.field, e.message]));
      assert.deepEqual(Object.keys(byField), [
        'rows[3].group_id',
        'rows[4].installation_status',
        'rows[5].installation_status',
        'rows[6].tuid',
        'rows[7].tuid',
        'rows[8].name',
        'rows[9].label.site',
        'rows[10].tuid',
      ]);
      assert.equal(byField['rows[3].group_id'], 'No group no-such-group.');
      assert.equal(
        byField['rows[4].installation_status'],
        'installation_status must be one of new, installed, uninstalled, quarantine, retired',
      );
      assert.equal(
        byField['rows[5].installation_status'],
        'The installation status cannot move from retired to installed; retired is final.',
      );
      assert.equal(byField['rows[6].tuid'], 'No thing RIVAL-1.');
      assert.match(byField['rows[7].tuid']!, /more than once/);
      assert.equal((await get('OK-1')).status, 404, 'the good row was not applied either');
      assert.equal((await context.rival.get('/things/RIVAL-1')).body.data.name, null, "the other organization's thing is untouched");
      const planned = await importFile(context, file, 'dry_run=true');
      assert.equal(planned.status, 200, 'a dry run answers the plan even with error rows');
      assert.deepEqual(planned.body.data.counts, { create: 1, update: 0, unchanged: 0, error: 8 });
    });

    test('a header with an unknown column is a 400 naming it; a bad label key too; a missing tuid column', async () => {
      const unknown = await importFile(context, 'tuid,colour\nX-1,red\n');
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.errors[0].field, 'colour');
      assert.match(unknown.body.message, /colour/);
      const badKey = await importFile(context, 'tuid,label.Site\nX-1,a\n');
      assert.equal(badKey.status, 400);
      assert.equal(badKey.body.errors[0].field, 'label.Site');
      assert.equal((await importFile(context, 'name\nx\n')).body.errors[0].field, 'tuid');
      const ndjsonUnknown = await importFile(context, '{"tuid":"X-1","colour":"red"}\n', '', 'application/x-ndjson');
      assert.equal(ndjsonUnknown.status, 400);
      assert.equal(ndjsonUnknown.body.errors[0].field, 'colour');
      assert.equal((await importFile(context, '{}', '', 'application/json')).status, 415);
    });

    test('NDJSON: labels replace all labels, null clears the name, a missing key leaves a field; create_groups', async () => {
      const first = await importFile(
        context,
        '{"tuid":"ND-1","name":"n","labels":{"a":"1","b":"2"},"group_id":"made-here"}\n',
        '',
        'application/x-ndjson',
      );
      assert.equal(first.status, 400, 'an unknown group without create_groups');
      const created = await importFile(
        context,
        '{"tuid":"ND-1","name":"n","labels":{"a":"1","b":"2"},"group_id":"made-here"}\r\n\n{"tuid":"ND-2","group_id":"made-here"}',
        'create_groups=true',
        'application/x-ndjson',
      );
      assert.equal(created.status, 200, created.text);
      assert.deepEqual(actionsOf(created.body), [
        [1, 'ND-1', 'create'],
        [3, 'ND-2', 'create'],
      ]);
      assert.equal((await context.rest.get('/groups/made-here/things')).body.data.tuids.length, 2);
      const replaced = await importFile(context, '{"tuid":"ND-1","name":null,"labels":{"c":"3"}}\n', '', 'application/x-ndjson');
      assert.equal(replaced.status, 200, replaced.text);
      const thing = (await get('ND-1')).body.data;
      assert.deepEqual([thing.name, thing.labels, thing.group_id], [null, { c: '3' }, 'made-here']);
      const cell = await importFile(context, 'tuid,label.d\nND-1,4\n');
      assert.deepEqual(cell.body.data.rows[0].changes.labels.to, { c: '3', d: '4' }, 'a label cell sets one label, leaves the others');
    });

    test('export (CSV and NDJSON, filtered as GET /things), then a dry-run import of it, plans every row unchanged', async () => {
      const seeded = await importFile(
        context,
        'tuid,name,group_id,installation_status,label.site,label.note\nEX-1,"Pump, ""big""\nline 2",north,installed,ex,"=1+2"\nEX-2,,,,ex,\nEX-3,other,,retired,,\n',
        'create_groups=true',
      );
      assert.equal(seeded.status, 200, seeded.text);
      for (const format of ['csv', 'ndjson'] as const) {
        const exported = await context.rest.get(`/things/export?format=${format}`);
        assert.equal(exported.status, 200, exported.text);
        assert.match(exported.headers.get('content-type')!, format === 'csv' ? /^text\/csv/ : /^application\/x-ndjson/);
        const type = format === 'csv' ? 'text/csv' : 'application/x-ndjson';
        const again = await importFile(context, exported.text, 'dry_run=true', type);
        assert.equal(again.status, 200, again.text);
        assert.equal(again.body.data.counts.unchanged, again.body.data.rows.length, `${format}: ${again.text.slice(0, 400)}`);
        assert.deepEqual({ ...again.body.data.counts, unchanged: 0 }, { create: 0, update: 0, unchanged: 0, error: 0 });
      }
      const filtered = await context.rest.get('/things/export?format=ndjson&label=site:ex');
      const lines = filtered.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        lines.map((l: { tuid: string }) => l.tuid),
        ['EX-1', 'EX-2'],
      );
      assert.deepEqual(lines[0], {
        tuid: 'EX-1',
        name: 'Pump, "big"\nline 2',
        group_id: 'north',
        installation_status: 'installed',
        labels: { note: '=1+2', site: 'ex' },
      });
      assert.equal((await context.rest.get('/things/export?format=xml')).status, 400);
    });

    test('a large plan is streamed as it is written (chunked, no Content-Length), the same JSON a whole answer would be', async () => {
      const count = 3000;
      const lines = Array.from({ length: count }, (_, i) => `STREAM-${i},"Sensor ${i}, \u00e9",,installed,s-${i % 7}`);
      const file = `tuid,name,group_id,installation_status,label.site\r\n${lines.join('\r\n')}\r\n`;
      for (const query of ['dry_run=true', '']) {
        const answer = await importFile(context, file, query);
        assert.equal(answer.status, 200, answer.text.slice(0, 300));
        assert.equal(answer.headers.get('transfer-encoding'), 'chunked', `${query}: streamed`);
        assert.equal(answer.headers.get('content-length'), null, `${query}: not built whole first`);
        assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(answer.text, JSON.stringify(answer.body), `${query}: compact JSON, as fastify's serializer writes it`);
        const plan = answer.body.data;
        assert.deepEqual(
          [plan.dry_run, plan.applied, plan.counts],
          [query !== '', query === '', { create: count, update: 0, unchanged: 0, error: 0 }],
        );
        assert.equal(plan.rows.length, count);
        assert.deepEqual(plan.rows[count - 1], {
          row: count + 1,
          tuid: `STREAM-${count - 1}`,
          action: 'create',
          changes: {
            name: { from: null, to: `Sensor ${count - 1}, \u00e9` },
            labels: { from: null, to: { site: `s-${(count - 1) % 7}` } },
            installation_status: { from: null, to: 'installed' },
            group_id: { from: null, to: 'unassigned' },
          },
        });
      }
      const again = await importFile(context, file, 'rows=changed');
      assert.deepEqual([again.body.data.counts.unchanged, again.body.data.rows], [count, []], 'an empty row list streams as []');
    });

    test('over 20 MiB is 413 naming the limit; over 100000 rows too', async () => {
      const big = 'tuid\n' + 'x'.repeat(20 * 1024 * 1024 + 1 - 5);
      const tooBig = await importFile(context, big + 'y', 'dry_run=true');
      assert.equal(tooBig.status, 413, tooBig.text.slice(0, 200));
      assert.match(tooBig.body.message, /20 MiB/);
      const rows = 'tuid\n' + Array.from({ length: 100_001 }, (_, i) => `R${i}`).join('\n');
      const tooMany = await importFile(context, rows, 'dry_run=true');
      assert.equal(tooMany.status, 413);
      assert.match(tooMany.body.message, /100000 rows/);
    });
  });
}
