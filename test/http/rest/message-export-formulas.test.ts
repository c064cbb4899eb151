import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const t0 = 1_790_000_000;

// Issue 32, finding 10: a device's text becomes a spreadsheet formula when an operator opens the CSV export. The
// cells a spreadsheet reads as a formula start with = + - @, a tab or a carriage return; the neutralized cell starts
// with a quote. A JSON number (temp -3.5) is a number, never text; the string "-3.5" a device sent is text.
const fixture = [
  { tsmId: 1100, tsmEv: 11, tsmTs: t0, tsmTuid: 'T-1', swVersion: '=HYPERLINK("http://x")', modelCode: '@SUM(1)', psn: '+1' },
  { tsmId: 1100, tsmEv: 11, tsmTs: t0 + 1, tsmTuid: 'T-1', swVersion: '-3.5', modelCode: '\tTAB', psn: '\rCR' },
  { tsmId: 12100, tsmEv: 10, tsmTs: t0 + 2, tsmTuid: 'T-1', temp: -3.5, humd: 40 },
  { tsmId: 1100, tsmEv: 11, tsmTs: t0 + 3, tsmTuid: 'T-1', swVersion: '1.4.2', modelCode: 'a=b', psn: 'P-1' },
];

const header =
  'tsmId,tsmEv,tsmTs,tsmTuid,tsmGw,tsmDstTuid,transactionId,deploymentGroupId,swVersion,modelCode,psn,airp,humd,temp,lght,otherFields\r\n';

for (const target of storeTargets) {
  describe(`CSV export neutralizes formulas on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let rest: RestClient;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      rest = new RestClient(server);
      await publishUplinks(server, fixture);
    });
    after(() => server?.stop());

    const exportCsv = async (query = '') => {
      const response = await rest.get(`/things/T-1/messages/export?format=csv&messageid=1100,12100${query}`);
      assert.equal(response.status, 200, response.text);
      return response.text;
    };

    test("text cells starting with = + - @ tab or CR get a leading '; numbers and other text are as sent", async () => {
      assert.equal(
        await exportCsv(),
        header +
          `1100,11,${t0},T-1,,,,unassigned,"'=HYPERLINK(""http://x"")",'@SUM(1),'+1,,,,,\r\n` +
          `1100,11,${t0 + 1},T-1,,,,unassigned,'-3.5,'\tTAB,"'\rCR",,,,,\r\n` +
          `12100,10,${t0 + 2},T-1,,,,unassigned,,,,,40,-3.5,,\r\n` +
          `1100,11,${t0 + 3},T-1,,,,unassigned,1.4.2,a=b,P-1,,,,,\r\n`,
      );
    });

    test('raw=true writes every cell as sent, for machine consumers; raw=false is the default', async () => {
      assert.equal(
        await exportCsv('&raw=true'),
        header +
          `1100,11,${t0},T-1,,,,unassigned,"=HYPERLINK(""http://x"")",@SUM(1),+1,,,,,\r\n` +
          `1100,11,${t0 + 1},T-1,,,,unassigned,-3.5,\tTAB,"\rCR",,,,,\r\n` +
          `12100,10,${t0 + 2},T-1,,,,unassigned,,,,,40,-3.5,,\r\n` +
          `1100,11,${t0 + 3},T-1,,,,unassigned,1.4.2,a=b,P-1,,,,,\r\n`,
      );
      assert.equal(await exportCsv('&raw=false'), await exportCsv());
      const group = await rest.get('/groups/unassigned/messages/export?format=csv&messageid=1100&to=' + t0);
      assert.match(group.text, /,"'=HYPERLINK\(""http:\/\/x""\)",'@SUM\(1\),'\+1,/, 'the group export too');
    });

    test('NDJSON is JSON for programs, untouched; a bad raw is 400 naming it', async () => {
      const ndjson = await rest.get('/things/T-1/messages/export?messageid=1100&to=' + t0);
      assert.equal(ndjson.text, `${JSON.stringify({ ...fixture[0], deploymentGroupId: 'unassigned' })}\n`);
      const bad = await rest.get('/things/T-1/messages/export?format=csv&raw=maybe');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'VALIDATION_FAILED');
      assert.ok(
        bad.body.errors.some((e: { field: string }) => e.field === 'raw'),
        bad.text,
      );
    });
  });
}
