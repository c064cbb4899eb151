import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { alertEngineLease } from '../../../src/domain/alerts/alert-engine.js';
import { ManualClock } from '../../../src/domain/clock.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { hear, manualEngineEnv, minute, periodsOf, utc } from './alert-test-helpers.js';

after(cleanupStores);
after(closeMqttClients);

// Two instances on one PostgreSQL store, each with its own clock showing the same time (as NTP would).
describe('one alert engine per cluster: the lease on PostgreSQL', { skip: postgresSkipReason }, () => {
  const t0 = Date.UTC(2026, 4, 4, 9, 0);
  const clocks = [new ManualClock(t0), new ManualClock(t0)] as const;
  const advance = (ms: number) => clocks.forEach((clock) => clock.advance(ms));
  let first: TestApp;
  let second: TestApp;
  const holder = async () => (await first.app.store.leases.get(alertEngineLease))?.holder;

  before(async () => {
    const url = await createPostgresUrl();
    // Started one after the other: the first takes the lease in its start-up run, the second finds it held.
    first = await startTestApp({ ...manualEngineEnv, DATABASE_URL: url }, { clock: clocks[0] });
    second = await startTestApp({ ...manualEngineEnv, DATABASE_URL: url }, { clock: clocks[1] });
  });
  after(async () => {
    await second?.stop();
    await first?.stop();
  });

  test('only the holder evaluates; the other instance skips its timer runs', async () => {
    assert.notEqual(first.app.alertEngine.instanceId, second.app.alertEngine.instanceId);
    assert.equal(await holder(), first.app.alertEngine.instanceId);
    await hear(first, 'GW-L', ['LEASE-1']);
    advance(11 * minute);
    assert.equal(await second.app.alertEngine.runScheduled(), false);
    assert.deepEqual(await periodsOf(new RestClient(first), 'LEASE-1'), {}, 'the other instance opened nothing');
    assert.equal(await first.app.alertEngine.runScheduled(), true);
    assert.deepEqual(Object.keys(await periodsOf(new RestClient(first), 'LEASE-1')), ['gateway connection lost']);
  });

  test('what another instance hears is closed by the holder at the arrival time', async () => {
    advance(minute);
    const back = clocks[1].now();
    // The second instance has not refreshed since the alert opened, so its ingest does not know of it.
    await hear(second, 'GW-L', ['LEASE-1']);
    advance(minute);
    await first.app.alertEngine.runScheduled();
    const periods = await periodsOf(new RestClient(first), 'LEASE-1');
    assert.equal(periods['gateway connection lost']?.[0]?.to, utc(back));
  });

  test('a holder that stops renewing loses the lease after its expiry; the other instance takes over', async () => {
    const ttl = first.app.alertEngine.leaseTtlMs;
    assert.equal(ttl, 3 * Number(manualEngineEnv.ALERT_INTERVAL_S) * 1000);
    advance(ttl - minute);
    assert.equal(await first.app.alertEngine.runScheduled(), true, 'renewed before expiry');
    advance(ttl);
    assert.equal(await second.app.alertEngine.runScheduled(), false, 'exactly at expiry the lease still holds');
    advance(1);
    assert.equal(await second.app.alertEngine.runScheduled(), true, 'expired: taken over');
    assert.equal(await holder(), second.app.alertEngine.instanceId);
    assert.equal(await first.app.alertEngine.runScheduled(), false, 'the old holder does not take it back');
  });

  test('a holder that stops cleanly gives the lease up at once', async () => {
    await second.stop();
    assert.equal(await holder(), undefined);
    assert.equal(await first.app.alertEngine.runScheduled(), true);
    assert.equal(await holder(), first.app.alertEngine.instanceId);
  });
});
