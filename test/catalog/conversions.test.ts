/** Worked examples of the seed's conversions. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeNodeRole, describeNeighNodeInfo, isConfigurationReadRequest, rssiToDbm } from '../../src/catalog/index.js';

describe('rssiToDbm', () => {
  const cases: [number, number][] = [
    [255, 0],
    [0, -128],
    [127.5, -64],
    [51, -102.4],
  ];
  for (const [rssi, dbm] of cases) {
    test(`rssi ${rssi} is ${dbm} dBm`, () => assert.ok(Math.abs(rssiToDbm(rssi) - dbm) < 1e-9, `${rssiToDbm(rssi)}`));
  }
});

describe('decodeNodeRole', () => {
  const cases: [number, string[]][] = [
    [0x85, ['subnode', 'sink', 'autorole']],
    [0x00, []],
    [0x02, ['headnode']],
    [0x30, ['low-latency', 'relay']],
    [0xb7, ['subnode', 'headnode', 'sink', 'low-latency', 'relay', 'autorole']],
    [0x08, []],
  ];
  for (const [flags, names] of cases) {
    test(`0x${flags.toString(16)} is [${names.join(', ')}]`, () => assert.deepEqual(decodeNodeRole(flags), names));
  }
});

describe('describeNeighNodeInfo', () => {
  test('names the seed values', () => {
    assert.equal(describeNeighNodeInfo(1), 'node routes traffic to the sender');
    assert.equal(describeNeighNodeInfo(2), 'node is in the same cluster');
    assert.equal(describeNeighNodeInfo(3), 'node is the routing destination from the sender');
  });
  test('is undefined for other values', () => {
    assert.equal(describeNeighNodeInfo(0), undefined);
    assert.equal(describeNeighNodeInfo(4), undefined);
  });
});

describe('isConfigurationReadRequest', () => {
  const identifiers = { tsmId: 12200, tsmEv: 30, tsmDstTuid: 'TD-1', transactionId: 5 };
  const cases: [string, unknown, boolean][] = [
    ['identifiers only', identifiers, true],
    ['identifiers and tsmTs', { ...identifiers, tsmTs: 1700000000 }, true],
    ['tsmId alone', { tsmId: 12200 }, true],
    ['with a mode field', { ...identifiers, hallMode: 1 }, false],
    ['with an unknown field', { ...identifiers, note: 'x' }, false],
    ['another id', { ...identifiers, tsmId: 1500 }, false],
    ['not an object', 'read', false],
  ];
  for (const [name, message, expected] of cases) {
    test(name, () => assert.equal(isConfigurationReadRequest(message), expected));
  }
});
