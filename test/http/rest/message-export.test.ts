import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const t0 = 1_790_000_000;

// T-1 and T-2 are in group north when their messages arrive; X-9 stays in no group. Published out of order: the
// export sorts by tsmTs. T-1's third message has unknown fields, one needing CSV quoting and one nested.
const fixture = [
  { tsmId: 12100, tsmEv: 10, tsmTs: t0 + 20, tsmTuid: 'T-1', tsmGw: 'GW-1', temp: -3.5, note: 'door "A", open', extra: { a: [1, 2] } },
  { tsmId: 12100, tsmEv: 10, tsmTs: t0, tsmTuid: 'T-1', tsmGw: 'GW-1', temp: 21.5, humd: 40 },
  { tsmId: 1110, tsmEv: 101, tsmTs: t0 + 10, tsmTuid: 'T-1', tsmGw: 'GW-1', batl: 80.6 },
  { tsmId: 1112, tsmEv: 10, tsmTs: t0 + 30, tsmTuid: 'T-1', uptime: 5 },
  { tsmId: 12100, tsmEv: 10, tsmTs: t0 + 5, tsmTuid: 'T-2', temp: 19 },
  { tsmId: 12100, tsmEv: 10, tsmTs: t0 + 5, tsmTuid: 'X-9', temp: 30 },
];

/** The served JSON of a fixture message: as received, plus the group it arrived in. */
const served = (index: number, group = 'north') => JSON.stringify({ ...fixture[index], deploymentGroupId: group });

const csvHeader =
  'tsmId,tsmEv,tsmTs,tsmTuid,tsmGw,tsmDstTuid,transactionId,deploymentGroupId,airp,humd,temp,lght,batl,chrg,otherFields\r\n';

for (const target of storeTargets) {
  describe(`message export over REST on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;
    let rival: RestClient;

    /** An export's raw answer (RestClient checks it against the document, which lists both media types). */
    const download = async (path: string, client = rest, headers: Record<string, string> = {}) => {
      const response = await client.get(path, { headers });
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        disposition: response.headers.get('content-disposition'),
        text: response.text,
      };
    };

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      rest = new RestClient(server);
      assert.equal((await rest.post('/groups', { group_id: 'north' })).status, 200);
      for (const tuid of ['T-1', 'T-2']) assert.equal((await rest.post(`/things/${tuid}/group`, { group_id: 'north' })).status, 200);
      await publishUplinks(server, fixture);
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Rival', id: 'rival' });
      const client = await createApiClient(deps, { organizationId: 'rival', name: 'rival' });
      rival = new RestClient(server, { client_id: client.client.clientId, client_secret: client.clientSecret });
      await rival.post('/groups', { group_id: 'south' });
    });
    after(() => server?.stop());

    test('NDJSON (the default): each message as the messages endpoint serves it, oldest first, as an attachment', async () => {
      const response = await download('/things/T-1/messages/export');
      assert.equal(response.status, 200);
      assert.equal(response.type, 'application/x-ndjson');
      assert.equal(response.disposition, `attachment; filename="thing-T-1-messages.ndjson"; filename*=UTF-8''thing-T-1-messages.ndjson`);
      assert.equal(response.text, [1, 2, 0, 3].map((i) => `${served(i)}\n`).join(''));
      const list = await rest.get('/things/T-1/messages?limit=10');
      assert.deepEqual(
        response.text.trim().split('\n').reverse(),
        list.body.data.map((m: unknown) => JSON.stringify(m)),
        'the same messages, byte for byte, as the list serves newest first',
      );
    });

    test('CSV: envelope, the catalog fields of the chosen ids, otherFields; RFC 4180 quoting; byte for byte', async () => {
      const response = await download('/things/T-1/messages/export?format=csv&messageid=12100,1110');
      assert.equal(response.status, 200);
      assert.equal(response.type, 'text/csv; charset=utf-8');
      assert.equal(response.disposition, `attachment; filename="thing-T-1-messages.csv"; filename*=UTF-8''thing-T-1-messages.csv`);
      assert.equal(
        response.text,
        csvHeader +
          `12100,10,${t0},T-1,GW-1,,,north,,40,21.5,,,,\r\n` +
          `1110,101,${t0 + 10},T-1,GW-1,,,north,,,,,80.6,,\r\n` +
          `12100,10,${t0 + 20},T-1,GW-1,,,north,,,-3.5,,,,"{""note"":""door \\""A\\"", open"",""extra"":{""a"":[1,2]}}"\r\n`,
      );
    });

    test('CSV without message ids: the envelope columns, everything else in otherFields; Accept text/csv picks CSV', async () => {
      const response = await download(`/things/T-1/messages/export?from=${t0 + 30}`, rest, { accept: 'text/csv' });
      assert.equal(response.type, 'text/csv; charset=utf-8');
      assert.equal(
        response.text,
        'tsmId,tsmEv,tsmTs,tsmTuid,tsmGw,tsmDstTuid,transactionId,deploymentGroupId,otherFields\r\n' +
          `1112,10,${t0 + 30},T-1,,,,north,"{""uptime"":5}"\r\n`,
      );
      const forced = await download(`/things/T-1/messages/export?from=${t0 + 30}&format=ndjson`, rest, { accept: 'text/csv' });
      assert.equal(forced.text, `${served(3)}\n`, 'format wins over Accept');
    });

    test('filters: from and to inclusive, messageid, eventid; an empty range is an empty body (CSV: the header)', async () => {
      const window = await download(`/things/T-1/messages/export?from=${t0 + 10}&to=${t0 + 20}`);
      assert.equal(window.text, `${served(2)}\n${served(0)}\n`);
      const ids = await download('/things/T-1/messages/export?messageid=1110,1112');
      assert.equal(ids.text, `${served(2)}\n${served(3)}\n`);
      const events = await download('/things/T-1/messages/export?eventid=101');
      assert.equal(events.text, `${served(2)}\n`);
      assert.equal((await download(`/things/T-1/messages/export?from=${t0 + 31}`)).text, '');
      assert.equal((await download(`/things/T-1/messages/export?from=${t0 + 31}&format=csv&messageid=12100,1110`)).text, csvHeader);
    });

    test('a group: its things now, by TUID then tsmTs; unassigned: the things in no group', async () => {
      const north = await download('/groups/north/messages/export?messageid=12100');
      assert.equal(north.status, 200);
      assert.equal(north.disposition, `attachment; filename="group-north-messages.ndjson"; filename*=UTF-8''group-north-messages.ndjson`);
      assert.equal(north.text, `${served(1)}\n${served(0)}\n${served(4)}\n`);
      const csv = await download(`/groups/north/messages/export?format=csv&messageid=12100&to=${t0 + 5}`);
      assert.equal(
        csv.text,
        'tsmId,tsmEv,tsmTs,tsmTuid,tsmGw,tsmDstTuid,transactionId,deploymentGroupId,airp,humd,temp,lght,otherFields\r\n' +
          `12100,10,${t0},T-1,GW-1,,,north,,40,21.5,,\r\n` +
          `12100,10,${t0 + 5},T-2,,,,north,,,19,,\r\n`,
      );
      const unassigned = await download('/groups/unassigned/messages/export');
      assert.equal(unassigned.text, `${served(5, 'unassigned')}\n`);
      assert.equal(
        unassigned.disposition,
        `attachment; filename="group-unassigned-messages.ndjson"; filename*=UTF-8''group-unassigned-messages.ndjson`,
      );
    });

    test('a group id outside ASCII gets a plain filename and the exact one in filename*', async () => {
      assert.equal((await rest.post('/groups', { group_id: 'Köln(süd)' })).status, 200);
      const response = await download(`/groups/${encodeURIComponent('Köln(süd)')}/messages/export?format=csv`);
      assert.equal(response.status, 200);
      assert.equal(
        response.disposition,
        `attachment; filename="group-K_ln_s_d_-messages.csv"; filename*=UTF-8''group-K%C3%B6ln%28s%C3%BCd%29-messages.csv`,
      );
      assert.equal(response.text, 'tsmId,tsmEv,tsmTs,tsmTuid,tsmGw,tsmDstTuid,transactionId,deploymentGroupId,otherFields\r\n');
    });

    test('every bad input is 400 naming the field, as JSON, before any export byte', async () => {
      const cases: [string, string][] = [
        [`/things/T-1/messages/export?from=${t0 + 1}&to=${t0}`, 'from'],
        ['/things/T-1/messages/export?from=-1', 'from'],
        ['/things/T-1/messages/export?to=soon', 'to'],
        ['/things/T-1/messages/export?format=xlsx', 'format'],
        ['/things/T-1/messages/export?format=', 'format'],
        ['/things/T-1/messages/export?messageid=12x00', 'messageid'],
        ['/things/T-1/messages/export?messageid=9999999999', 'messageid'],
        ['/things/T-1/messages/export?eventid=,', 'eventid'],
        [`/things/T-1/messages/export?messageid=${Array.from({ length: 101 }, (_, i) => i).join(',')}`, 'messageid'],
        [`/things/${encodeURIComponent('bad tuid')}/messages/export`, 'tuid'],
        [`/groups/north/messages/export?from=${t0 + 1}&to=${t0}`, 'from'],
        ['/groups/north/messages/export?format=xml', 'format'],
        ['/groups/Unassigned/messages/export', 'groupid'],
        ['/groups/a%2Fb/messages/export', 'groupid'],
      ];
      for (const [path, field] of cases) {
        const response = await rest.get(path);
        assert.equal(response.status, 400, path);
        assert.match(response.headers.get('content-type') ?? '', /^application\/json/, path);
        assert.equal(response.body.code, 'VALIDATION_FAILED', path);
        assert.ok(
          response.body.errors.some((e: { field: string }) => e.field === field),
          `${path}: ${response.text}`,
        );
      }
      const valid = `/things/T-1/messages/export?messageid=${Array.from({ length: 100 }, (_, i) => i).join(',')}&from=${t0}&to=${t0}&format=csv`;
      assert.equal((await rest.get(valid)).status, 200, '100 ids and from = to are fine');
      assert.equal((await rest.get('/things/T-1/messages/export?messageid=2147483647&eventid=0')).status, 200);
    });

    test("isolation: another organization's thing and group answer exactly like unknown ones; no token is 401", async () => {
      const foreignThing = await rival.get('/things/T-1/messages/export');
      const unknownThing = await rival.get('/things/NOPE/messages/export');
      assert.equal(foreignThing.status, 404);
      assert.deepEqual(foreignThing.body, { ...unknownThing.body, message: 'No thing T-1.' });
      assert.equal((await rest.get('/things/NOPE/messages/export')).status, 404);
      const foreignGroup = await rest.get('/groups/south/messages/export');
      assert.deepEqual(foreignGroup.body, { statusCode: 404, error: 'Not Found', message: 'No group south.', code: 'NOT_FOUND' });
      const ownGroup = await download('/groups/south/messages/export', rival);
      assert.equal(ownGroup.status, 200);
      assert.equal(ownGroup.text, '', 'the rival sees its own (empty) group');
      assert.equal((await download('/groups/north/messages/export', rival)).status, 404);
      assert.equal(
        (await download('/groups/unassigned/messages/export', rival)).text,
        '',
        "the rival's unassigned holds none of Acme's things",
      );
      for (const path of ['/things/T-1/messages/export', '/groups/north/messages/export']) {
        assert.equal((await rest.get(path, { auth: false })).status, 401, path);
      }
    });
  });
}
