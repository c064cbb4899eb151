import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';
import { hear, manualEngineEnv, minute, periodsOf, utc } from './alert-test-helpers.js';

after(cleanupStores);
after(closeMqttClients);

// GATEWAY_TIMEOUT_S=600, DEVICE_TIMEOUT_S=3600, ALERT_TIMEZONE=UTC; the clock only moves when a test moves it.
for (const target of storeTargets) {
  describe(`alert engine rules on ${target.name}`, { skip: target.skip }, () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 10, 8, 0, 0));
    let server: TestApp;
    // A fresh client (and token) per call: tokens expire after 15 minutes of the manual clock.
    const rest = () => new RestClient(server);
    const evaluate = () => server.app.alertEngine.evaluateSilence();

    before(async () => {
      server = await startTestApp({ ...manualEngineEnv, DATABASE_URL: await target.createUrl() }, { clock });
    });
    after(() => server?.stop());

    test('device connection lost opens when the thing is silent past DEVICE_TIMEOUT_S and closes when it is heard', async () => {
      const heardAt = clock.now();
      await hear(server, 'GW-DEV', ['DEV-1']);
      clock.advance(60 * minute);
      await evaluate();
      assert.equal((await periodsOf(rest(), 'DEV-1'))['device connection lost'], undefined, 'exactly the timeout is not yet silent');
      clock.advance(25 * minute);
      await evaluate();
      await evaluate();
      assert.deepEqual(
        (await periodsOf(rest(), 'DEV-1'))['device connection lost'],
        [{ from: utc(heardAt + 60 * minute), to: null }],
        'from: when the silence began',
      );
      assert.ok((await rest().get('/things/alerts')).body.data.alerting_tuids.includes('DEV-1'));
      clock.advance(5 * minute);
      const back = clock.now();
      await hear(server, 'GW-DEV', ['DEV-1']);
      assert.deepEqual(
        (await periodsOf(rest(), 'DEV-1'))['device connection lost'],
        [{ from: utc(heardAt + 60 * minute), to: utc(back) }],
        'closed on ingest at arrival',
      );
      await evaluate();
      assert.equal((await periodsOf(rest(), 'DEV-1'))['device connection lost']?.length, 1);
    });

    test('a silent gateway opens gateway connection lost on every thing last heard through it; hearing it closes them all', async () => {
      const heardAt = clock.now();
      await hear(server, 'GW-B', ['GB-1', 'GB-2', 'GB-3']);
      await hear(server, 'GW-OTHER', ['GB-4']);
      clock.advance(9 * minute);
      await hear(server, 'GW-OTHER', ['GB-4']);
      clock.advance(2 * minute);
      await evaluate();
      for (const tuid of ['GB-1', 'GB-2', 'GB-3']) {
        assert.deepEqual(
          (await periodsOf(rest(), tuid))['gateway connection lost'],
          [{ from: utc(heardAt + 10 * minute), to: null }],
          tuid,
        );
      }
      assert.equal((await periodsOf(rest(), 'GB-4'))['gateway connection lost'], undefined, 'another gateway, still heard');
      clock.advance(3 * minute);
      const back = clock.now();
      await hear(server, 'GW-B', ['GB-1']);
      for (const tuid of ['GB-1', 'GB-2', 'GB-3']) {
        assert.deepEqual(
          (await periodsOf(rest(), tuid))['gateway connection lost'],
          [{ from: utc(heardAt + 10 * minute), to: utc(back) }],
          tuid,
        );
      }
      await evaluate();
      assert.equal((await periodsOf(rest(), 'GB-2'))['gateway connection lost']?.length, 1, 'the gateway is heard again: no new period');
    });

    test('a thing heard through another gateway closes its gateway alert; the rest stay open', async () => {
      const heardAt = clock.now();
      await hear(server, 'GW-C', ['GC-1', 'GC-2']);
      clock.advance(11 * minute);
      await evaluate();
      clock.advance(minute);
      const moved = clock.now();
      await hear(server, 'GW-D', ['GC-1']);
      assert.deepEqual((await periodsOf(rest(), 'GC-1'))['gateway connection lost'], [
        { from: utc(heardAt + 10 * minute), to: utc(moved) },
      ]);
      assert.deepEqual((await periodsOf(rest(), 'GC-2'))['gateway connection lost'], [{ from: utc(heardAt + 10 * minute), to: null }]);
      clock.advance(11 * minute);
      await evaluate();
      assert.deepEqual(
        (await periodsOf(rest(), 'GC-1'))['gateway connection lost'],
        [
          { from: utc(heardAt + 10 * minute), to: utc(moved) },
          { from: utc(moved + 10 * minute), to: null },
        ],
        'now silent through its new gateway',
      );
      assert.equal((await periodsOf(rest(), 'GC-2'))['gateway connection lost']?.length, 1);
    });

    test('battery low opens below 15, stays open between 15 and 20, closes at 20; newest report by tsmTs decides', async () => {
      let tsmTs = 1_790_000_000;
      const report = async (batl: number, ts = (tsmTs += 60)) => {
        const at = clock.now();
        await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: ts, tsmTuid: 'BAT-1', batl }], 'GW-BAT');
        await server.app.alertEngine.settled();
        clock.advance(minute);
        return at;
      };
      const battery = async () => (await periodsOf(rest(), 'BAT-1'))['battery low'] ?? [];
      await report(30);
      await report(15);
      assert.deepEqual(await battery(), [], '15 is not below 15');
      const opened = await report(14.9);
      assert.deepEqual(await battery(), [{ from: utc(opened), to: null }]);
      await report(17);
      await report(19.9);
      await evaluate();
      assert.deepEqual(await battery(), [{ from: utc(opened), to: null }], 'between the thresholds the alert stays open');
      const closed = await report(20);
      assert.deepEqual(await battery(), [{ from: utc(opened), to: utc(closed) }]);
      await report(17);
      await report(5, 1_700_000_000);
      await evaluate();
      assert.equal((await battery()).length, 1, 'between thresholds after closing: nothing; an older report does not count');
      const again = await report(3);
      assert.deepEqual((await battery())[1], { from: utc(again), to: null });
    });

    test('retired and quarantined things raise no connection alerts; retiring a thing closes its open ones', async () => {
      await hear(server, 'GW-R', ['RET-1', 'QUA-1', 'NEW-1', 'INS-1']);
      assert.equal((await rest().post('/things/RET-1/installations', { installation_status: 'retired' })).status, 200);
      assert.equal((await rest().post('/things/QUA-1/installations', { installation_status: 'quarantine' })).status, 200);
      assert.equal((await rest().post('/things/INS-1/installations', { installation_status: 'installed' })).status, 200);
      clock.advance(61 * minute);
      await evaluate();
      assert.deepEqual(await periodsOf(rest(), 'RET-1'), {});
      assert.deepEqual(await periodsOf(rest(), 'QUA-1'), {});
      assert.deepEqual(Object.keys(await periodsOf(rest(), 'NEW-1')), ['gateway connection lost', 'device connection lost']);
      assert.deepEqual(Object.keys(await periodsOf(rest(), 'INS-1')), ['gateway connection lost', 'device connection lost']);
      clock.advance(minute);
      const retiredAt = clock.now();
      assert.equal((await rest().post('/things/INS-1/installations', { installation_status: 'retired' })).status, 200);
      await evaluate();
      const periods = await periodsOf(rest(), 'INS-1');
      assert.equal(periods['gateway connection lost']?.[0]?.to, utc(retiredAt));
      assert.equal(periods['device connection lost']?.[0]?.to, utc(retiredAt));
      assert.ok(!(await rest().get('/things/alerts')).body.data.alerting_tuids.includes('INS-1'));
    });
  });
}
