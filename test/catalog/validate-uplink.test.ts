/** Lenient uplink validation (SPEC section 5): errors only for unreadable envelopes. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { validateUplink } from '../../src/catalog/index.js';
import { assertProblemOn } from './helpers.js';

const envelope = { tsmTs: 1700000000, tsmTuid: 'TD-SENSOR-0001', tsmGw: 'TD-GW-0001' };
const clean = { errors: [], warnings: [] };

describe('validateUplink', () => {
  test('unknown ids with unknown fields pass without problems', () => {
    assert.deepEqual(validateUplink({ tsmId: 24100, tsmEv: 1, carbonDioxide: 412, ...envelope }), clean);
    assert.deepEqual(validateUplink({ tsmId: 2100, state: 'on', ...envelope }), clean);
  });

  test('unknown fields on a known id pass', () => {
    assert.deepEqual(validateUplink({ tsmId: 1110, tsmEv: 10, batl: 80, vendorExtra: 'x', ...envelope }), clean);
  });

  const warningCases: [string, Record<string, unknown>, string][] = [
    ['1110 without its required batl', { tsmId: 1110 }, 'batl'],
    ['1110 batl as a string', { tsmId: 1110, batl: '80' }, 'batl'],
    ['1110 batl above 100', { tsmId: 1110, batl: 101 }, 'batl'],
    ['12101 hall outside 0/1', { tsmId: 12101, hall: 2 }, 'hall'],
    ['1200 rssi above 255', { tsmId: 1200, wpnode: '1', rssi: 300 }, 'rssi'],
    ['1200 neighNodeInfo 4', { tsmId: 1200, wpnode: '1', rssi: 100, neighNodeInfo: 4 }, 'neighNodeInfo'],
    ['1402 response result -3', { tsmId: 1402, tsmEv: 36, result: -3, transactionId: 1 }, 'result'],
    ['1301 result outside ok/fail/cancel', { tsmId: 1301, result: 'done' }, 'result'],
    ['1500 echo with a bad reportInterval', { tsmId: 1500, tsmEv: 31, transactionId: 1, reportInterval: -5 }, 'reportInterval'],
    ['tsmTs with a fraction', { tsmId: 1112, uptime: 5, tsmTs: 1700000000.25 }, 'tsmTs'],
    ['tsmEv not an integer', { tsmId: 1112, tsmEv: 'x' }, 'tsmEv'],
    ['tsmGw not a string', { tsmId: 1112, tsmGw: 7 }, 'tsmGw'],
  ];
  for (const [name, fields, field] of warningCases) {
    test(`warns, does not refuse: ${name}`, () => {
      const { errors, warnings } = validateUplink({ ...envelope, ...fields });
      assert.deepEqual(errors, []);
      assertProblemOn(warnings, field);
    });
  }

  test('a 1201 response may carry a null tuid', () => {
    assert.deepEqual(validateUplink({ tsmId: 1201, tsmEv: 20, wpnode: 42, tuid: null, ...envelope }), clean);
  });

  test('integer tsmTs of Unix seconds is accepted', () => {
    assert.deepEqual(validateUplink({ tsmId: 1112, uptime: 5, ...envelope, tsmTs: 1731000000 }), clean);
  });

  const errorCases: [string, unknown, string][] = [
    ['not an object', [1, 2], ''],
    ['null', null, ''],
    ['no tsmId', { ...envelope }, 'tsmId'],
    ['tsmId as a string', { ...envelope, tsmId: '1110' }, 'tsmId'],
    ['tsmId with a fraction', { ...envelope, tsmId: 1110.5 }, 'tsmId'],
    ['no tsmTuid', { tsmId: 1110, tsmTs: 1700000000 }, 'tsmTuid'],
    ['empty tsmTuid', { ...envelope, tsmId: 1110, tsmTuid: '' }, 'tsmTuid'],
    ['no tsmTs', { tsmId: 1110, tsmTuid: 'TD-1' }, 'tsmTs'],
    ['tsmTs as a string', { ...envelope, tsmId: 1110, tsmTs: '1700000000' }, 'tsmTs'],
    ['tsmTs not finite', { ...envelope, tsmId: 1110, tsmTs: Number.NaN }, 'tsmTs'],
  ];
  for (const [name, message, field] of errorCases) {
    test(`refuses an unreadable envelope: ${name}`, () => {
      const { errors, warnings } = validateUplink(message);
      assertProblemOn(errors, field);
      assert.deepEqual(warnings, []);
    });
  }
});
