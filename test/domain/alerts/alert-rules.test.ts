import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  alertThresholds,
  expectedAlertTypes,
  isSilent,
  nextBatteryLow,
  raisesConnectionAlerts,
  reportedBatteryLevel,
  silenceStart,
  type ThingAlertState,
} from '../../../src/domain/alerts/alert-rules.js';
import { installationStatuses } from '../../../src/domain/things/thing-types.js';

const thresholds = alertThresholds({ gatewayTimeoutS: 900, deviceTimeoutS: 3600, batteryLowPercent: 15, batteryOkPercent: 20 });
const now = Date.UTC(2026, 0, 1, 12);
const minute = 60_000;

describe('alert rules (SPEC section 7)', () => {
  test('silence: strictly more than the timeout since the last arrival; never heard is not silent', () => {
    const cases: [heardAt: number | null, silent: boolean][] = [
      [now, false],
      [now - 15 * minute, false],
      [now - 15 * minute - 1, true],
      [now - 24 * 60 * minute, true],
      [null, false],
    ];
    for (const [heardAt, silent] of cases) assert.equal(isSilent(heardAt, now, thresholds.gatewayTimeoutMs), silent, String(heardAt));
    assert.equal(silenceStart(now, thresholds.deviceTimeoutMs), now + 60 * minute);
  });

  test('battery low has hysteresis: opens below 15, closes at 20 or more, keeps its state between', () => {
    const cases: [level: number | null, currentlyLow: boolean, next: boolean][] = [
      [14.9, false, true],
      [0, false, true],
      [15, false, false],
      [17, false, false],
      [19.99, false, false],
      [14, true, true],
      [15, true, true],
      [19.99, true, true],
      [20, true, false],
      [100, true, false],
      [null, true, true],
      [null, false, false],
    ];
    for (const [level, currentlyLow, next] of cases)
      assert.equal(nextBatteryLow(level, currentlyLow, thresholds), next, `${level} ${currentlyLow}`);
  });

  test('retired and quarantined things raise no connection alerts; every other status does', () => {
    for (const status of installationStatuses)
      assert.equal(raisesConnectionAlerts(status), status !== 'retired' && status !== 'quarantine', status);
  });

  test('expected alert types for a thing', () => {
    const quiet: ThingAlertState = {
      installationStatus: 'installed',
      lastHeardAt: now - minute,
      lastHeardGatewayTuid: 'GW-1',
      gatewayLastHeardAt: now - minute,
      batteryLevel: 80,
      batteryLow: false,
    };
    const cases: [name: string, change: Partial<ThingAlertState>, expected: string[]][] = [
      ['all well', {}, []],
      ['gateway silent', { gatewayLastHeardAt: now - 16 * minute, lastHeardAt: now - 16 * minute }, ['gateway connection lost']],
      ['thing silent, gateway heard through others', { lastHeardAt: now - 61 * minute }, ['device connection lost']],
      [
        'both silent',
        { lastHeardAt: now - 61 * minute, gatewayLastHeardAt: now - 61 * minute },
        ['gateway connection lost', 'device connection lost'],
      ],
      ['no gateway known', { lastHeardGatewayTuid: null, gatewayLastHeardAt: null }, []],
      ['retired and silent', { installationStatus: 'retired', lastHeardAt: now - 61 * minute, gatewayLastHeardAt: now - 61 * minute }, []],
      [
        'quarantined and silent, battery low',
        { installationStatus: 'quarantine', lastHeardAt: now - 61 * minute, batteryLevel: 5 },
        ['battery low'],
      ],
      ['never heard', { lastHeardAt: null, lastHeardGatewayTuid: null, gatewayLastHeardAt: null, batteryLevel: null }, []],
      ['battery between thresholds, was low', { batteryLevel: 17, batteryLow: true }, ['battery low']],
      ['battery between thresholds, was fine', { batteryLevel: 17 }, []],
    ];
    for (const [name, change, expected] of cases)
      assert.deepEqual(expectedAlertTypes({ ...quiet, ...change }, now, thresholds), expected, name);
  });

  test('only a 1110 with a numeric batl reports a battery level', () => {
    assert.equal(reportedBatteryLevel({ tsmId: 1110, message: { batl: 14.5 } }), 14.5);
    assert.equal(reportedBatteryLevel({ tsmId: 1110, message: { batl: '14' } }), undefined);
    assert.equal(reportedBatteryLevel({ tsmId: 1110, message: {} }), undefined);
    assert.equal(reportedBatteryLevel({ tsmId: 12100, message: { batl: 14 } }), undefined);
  });
});
