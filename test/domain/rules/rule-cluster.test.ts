/** SPEC section 13 with two instances on one PostgreSQL store: one period, not two; a for_s wait seen by both. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { manualEngineEnv } from '../alerts/alert-test-helpers.js';
import { createRule, openFlags, periodsOf, send } from './rule-test-helpers.js';

after(cleanupStores);
after(closeMqttClients);

describe('rule alerts on two instances sharing PostgreSQL', { skip: postgresSkipReason }, () => {
  const t0 = Date.UTC(2026, 6, 1, 8, 0);
  const clocks = [new ManualClock(t0), new ManualClock(t0)] as const;
  const advance = (ms: number) => clocks.forEach((clock) => clock.advance(ms));
  let first: TestApp;
  let second: TestApp;
  const rest = () => new RestClient(first);

  before(async () => {
    const url = await createPostgresUrl();
    first = await startTestApp({ ...manualEngineEnv, DATABASE_URL: url }, { clock: clocks[0] });
    second = await startTestApp({ ...manualEngineEnv, DATABASE_URL: url }, { clock: clocks[1] });
  });
  after(async () => {
    await second?.stop();
    await first?.stop();
  });

  /** The other instance hears of a new rule through NOTIFY; reading the rules again makes the test independent of that delay. */
  const ruleKnownOn = (app: TestApp) => app.app.alertEngine.reloadRules();

  test('both instances seeing the condition at once open one period', async () => {
    const rule = await createRule(rest(), { name: 'race' });
    await ruleKnownOn(second);
    await Promise.all([send(first, [{ tuid: 'C-1', temp: 41 }]), send(second, [{ tuid: 'C-1', temp: 42 }])]);
    assert.deepEqual(await openFlags(rest(), 'C-1', rule), [true]);
  });

  test('a for_s wait begun on one instance is confirmed on the other; its break on the other counts too', async () => {
    const rule = await createRule(rest(), { name: 'shared wait', for_s: 60 });
    await ruleKnownOn(second);
    await send(first, [
      { tuid: 'C-2', temp: 31 },
      { tuid: 'C-3', temp: 31 },
    ]);
    advance(30_000);
    // The break of C-3's wait reaches the store through the second instance.
    await send(second, [{ tuid: 'C-3', temp: 10 }]);
    advance(30_000);
    await send(second, [{ tuid: 'C-2', temp: 32 }]);
    await send(first, [{ tuid: 'C-3', temp: 33 }]);
    const [period] = await periodsOf(rest(), 'C-2', rule);
    assert.deepEqual([period?.value, period?.to], [32, null]);
    assert.deepEqual(await openFlags(rest(), 'C-3', rule), [], 'its wait broke at 30 s');
  });
});
