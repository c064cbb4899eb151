/**
 * SPEC section 13: `for_s` by arrival time on both stores: a condition opens a period only once it has held that
 * long (at a message or the engine's periodic run), a broken one opens nothing, and a restart continues the wait.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { manualEngineEnv } from '../alerts/alert-test-helpers.js';
import { createRule, openFlags, periodsOf, send } from './rule-test-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const second = 1000;

for (const target of storeTargets) {
  describe(`for_s on ${target.name}`, { skip: target.skip }, () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
    let server: TestApp | undefined;
    let url: string;
    // A fresh client per call: tokens expire after 15 minutes of the manual clock.
    const rest = () => new RestClient(server!);
    const start = async () => {
      url ??= await target.createUrl();
      server = await startTestApp({ ...manualEngineEnv, DATABASE_URL: url }, { clock });
      return server;
    };
    after(() => server?.stop());

    test('the period opens at the first message after the condition held for_s, with that value; never before', async () => {
      const app = await start();
      const rule = await createRule(rest(), { name: 'sustained', for_s: 60 });
      await send(app, [{ tuid: 'F-1', temp: 31 }]);
      clock.advance(30 * second);
      await send(app, [{ tuid: 'F-1', temp: 32 }]);
      assert.deepEqual(await openFlags(rest(), 'F-1', rule), [], 'held 30 s of 60');
      clock.advance(30 * second);
      await send(app, [{ tuid: 'F-1', temp: 33 }]);
      const [period] = await periodsOf(rest(), 'F-1', rule);
      assert.deepEqual([period?.value, period?.to], [33, null]);
    });

    test('a condition that breaks before for_s opens nothing, and the wait starts again', async () => {
      const app = server!;
      const rule = await createRule(rest(), { name: 'broken', for_s: 60 });
      await send(app, [{ tuid: 'F-2', temp: 31 }]);
      clock.advance(50 * second);
      await send(app, [{ tuid: 'F-2', temp: 20 }]);
      clock.advance(20 * second);
      await send(app, [{ tuid: 'F-2', temp: 31 }]);
      await app.app.alertEngine.evaluateSilence();
      assert.deepEqual(await openFlags(rest(), 'F-2', rule), [], 'held 0 s since it broke');
      clock.advance(59 * second);
      await send(app, [{ tuid: 'F-2', temp: 31.5 }]);
      assert.deepEqual(await openFlags(rest(), 'F-2', rule), []);
    });

    test("the engine's periodic run opens a period whose for_s has passed without a message", async () => {
      const app = server!;
      const rule = await createRule(rest(), { name: 'quiet', for_s: 120 });
      await send(app, [{ tuid: 'F-3', temp: 40 }]);
      clock.advance(119 * second);
      await app.app.alertEngine.evaluateSilence();
      assert.deepEqual(await openFlags(rest(), 'F-3', rule), []);
      clock.advance(1 * second);
      await app.app.alertEngine.evaluateSilence();
      const [period] = await periodsOf(rest(), 'F-3', rule);
      assert.deepEqual([period?.value, period?.to], [40, null]);
    });

    test('a restart in the middle of a for_s window continues it: the wait is in the store', async () => {
      const rule = await createRule(rest(), { name: 'restart', for_s: 60 });
      await send(server!, [
        { tuid: 'F-4', temp: 31 },
        { tuid: 'F-5', temp: 31 },
      ]);
      clock.advance(40 * second);
      await server!.stop();
      const app = await start();
      clock.advance(20 * second);
      await send(app, [{ tuid: 'F-4', temp: 32 }]);
      assert.deepEqual(await openFlags(rest(), 'F-4', rule), [true], 'opened by the first message after the restart');
      await app.app.alertEngine.evaluateSilence();
      assert.deepEqual(await openFlags(rest(), 'F-5', rule), [true], 'opened by the periodic run after the restart');
    });
  });
}
