/** The seed's specific downlink rules, written out by hand next to the generated table. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleMessage, validateDownlink } from '../../src/catalog/index.js';
import { assertNoProblemOn, assertProblemOn } from './helpers.js';

const beaconA = { tsmId: 1206, tsmEv: 30, transactionId: 7 };

describe('validateDownlink: seed rules', () => {
  const cases: [string, Record<string, unknown>, string, string | undefined][] = [
    [
      '1206 reportInterval below 100',
      { ...beaconA, reportInterval: 99 },
      'reportInterval',
      'reportInterval must be an integer between 100 and 60000',
    ],
    ['1206 reportInterval above 60000', { ...beaconA, reportInterval: 60001 }, 'reportInterval', undefined],
    ['1207 reportInterval reuses 1206 range', { tsmId: 1207, transactionId: 7, reportInterval: 60001 }, 'reportInterval', undefined],
    ['1208 index above 2', { tsmId: 1208, transactionId: 7, index: 3 }, 'index', 'index must be an integer between 0 and 2'],
    ['1208 index below 0', { tsmId: 1208, transactionId: 7, index: -1 }, 'index', undefined],
    [
      '1302 scratchpadSeqNumber 0',
      { tsmId: 1302, binaryUrl: 'https://x.example/a.bin', scratchpadSeqNumber: 0 },
      'scratchpadSeqNumber',
      'scratchpadSeqNumber must be an integer between 1 and 254',
    ],
    [
      '1302 scratchpadSeqNumber 255',
      { tsmId: 1302, binaryUrl: 'https://x.example/a.bin', scratchpadSeqNumber: 255 },
      'scratchpadSeqNumber',
      undefined,
    ],
    ['1206 beaconMajor 256', { ...beaconA, beaconMajor: 256 }, 'beaconMajor', 'beaconMajor must be an integer between 0 and 255'],
    ['1206 beaconMinor -1', { ...beaconA, beaconMinor: -1 }, 'beaconMinor', undefined],
    ['1206 txPower 2', { ...beaconA, txPower: 2 }, 'txPower', 'txPower must be one of -8, -4, 0, 4'],
    ['1208 txPower 8', { tsmId: 1208, transactionId: 7, txPower: 8 }, 'txPower', undefined],
    ['1206 beaconChannels 3', { ...beaconA, beaconChannels: 3 }, 'beaconChannels', 'beaconChannels must be one of 0, 1, 2, 6, 255'],
    ['1207 beaconFrame 8', { tsmId: 1207, transactionId: 7, beaconFrame: 8 }, 'beaconFrame', 'beaconFrame must be one of 0, 16, 32, 48'],
    ['1206 beaconData not hex', { ...beaconA, beaconData: 'https://example.com' }, 'beaconData', undefined],
    [
      '1300 binaryType outside its set, second element',
      { tsmId: 1300, binaries: [exampleMessage(1300).binaries[0], { binaryUrl: 'https://x.example/b.bin', binaryType: 'esp32' }] },
      'binaries[1].binaryType',
      'binaries[1].binaryType must be one of "stm32_mcu", "nRF52_sink"',
    ],
    ['1300 empty binaries', { tsmId: 1300, binaries: [] }, 'binaries', 'binaries must be an array of at least 1 element(s)'],
    ['1401 diagGroup 6', { tsmId: 1401, diagGroup: 6, diagExpiry: 1700000000 }, 'diagGroup', undefined],
    ['1501 nodeRole 2', { tsmId: 1501, transactionId: 7, nodeRole: 2 }, 'nodeRole', 'nodeRole must be one of 0, 1'],
    ['1502 nodeAccessCycle 4', { tsmId: 1502, transactionId: 7, nodeAccessCycle: 4 }, 'nodeAccessCycle', undefined],
    ['1503 profileId 4', { tsmId: 1503, transactionId: 7, profileId: 4 }, 'profileId', undefined],
    ['1505 profileId 2', { tsmId: 1505, transactionId: 7, profileId: 2 }, 'profileId', 'profileId must be one of 0, 1'],
    [
      '12200 weatherMode 1 (only -1 or 0)',
      { tsmId: 12200, transactionId: 7, weatherMode: 1 },
      'weatherMode',
      'weatherMode must be one of -1, 0',
    ],
    [
      '12210 weatherMode -1 (only 0 or 1)',
      { tsmId: 12210, transactionId: 7, weatherMode: -1 },
      'weatherMode',
      'weatherMode must be one of 0, 1',
    ],
    ['12200 accelerometerMode "1" as a string', { tsmId: 12200, transactionId: 7, accelerometerMode: '1' }, 'accelerometerMode', undefined],
    ['1500 transactionId missing', { tsmId: 1500, reportInterval: 60 }, 'transactionId', 'transactionId is required'],
    [
      '1500 unknown field',
      { tsmId: 1500, transactionId: 7, reportIntervall: 60 },
      'reportIntervall',
      'reportIntervall is not a field of message 1500 (Sensor Application Interval Configuration)',
    ],
    ['uplink-only id', { tsmId: 1110, batl: 50 }, 'tsmId', 'tsmId 1110 (Thing Battery Info) is sent by devices, not to them'],
    ['unknown id', { tsmId: 24100, carbonDioxide: 400 }, 'tsmId', 'tsmId 24100 is not a message id of the catalog'],
    ['missing tsmId', { transactionId: 7 }, 'tsmId', 'tsmId is required'],
    ['tsmTs with a fraction', { ...beaconA, tsmTs: 1700000000.5 }, 'tsmTs', 'tsmTs must be an integer of at least 0'],
    ['empty tsmDstTuid', { ...beaconA, tsmDstTuid: '' }, 'tsmDstTuid', 'tsmDstTuid must be a non-empty string'],
  ];
  for (const [name, message, field, expectedMessage] of cases) {
    test(name, () => assertProblemOn(validateDownlink(message), field, expectedMessage));
  }

  test('every problem is reported, not only the first', () => {
    const problems = validateDownlink({ ...beaconA, reportInterval: 5, txPower: 5, index: 1, beaconChannels: 'all' });
    assert.deepEqual(problems.map((problem) => problem.field).sort(), ['beaconChannels', 'index', 'reportInterval', 'txPower']);
  });

  test('the edges of ranges are accepted', () => {
    for (const reportInterval of [100, 60000]) assert.deepEqual(validateDownlink({ ...beaconA, reportInterval }), []);
    for (const index of [0, 2]) assert.deepEqual(validateDownlink({ tsmId: 1208, transactionId: 1, index }), []);
    for (const beaconMajor of [0, 255]) assert.deepEqual(validateDownlink({ ...beaconA, beaconMajor }), []);
    for (const txPower of [-8, -4, 0, 4]) assert.deepEqual(validateDownlink({ ...beaconA, txPower }), []);
  });

  test('hex buffers of either case are accepted', () => {
    assert.deepEqual(validateDownlink({ ...beaconA, beaconData: '0A1bFF' }), []);
  });

  test('envelope fields are accepted on any downlink', () => {
    const message = { tsmId: 1404, tsmEv: 23, tsmTs: 1700000000, tsmDstTuid: 'TD-1', tsmTuid: 'TD-1', tsmGw: 'GW', transactionId: 3 };
    assert.deepEqual(validateDownlink(message), []);
  });

  test('a 1404 reset takes no fields beyond the envelope', () => {
    assertProblemOn(validateDownlink({ tsmId: 1404, delay: 5 }), 'delay');
  });

  test('the 1201 request needs wpnode as a Number; the response form is not a downlink', () => {
    assert.deepEqual(validateDownlink({ tsmId: 1201, tsmEv: 19, wpnode: 42 }), []);
    assertProblemOn(validateDownlink({ tsmId: 1201, wpnode: '42' }), 'wpnode');
    assertProblemOn(validateDownlink({ tsmId: 1201, wpnode: 42, tuid: null }), 'tuid');
  });

  test('a 1402 request needs command and transactionId', () => {
    const problems = validateDownlink({ tsmId: 1402, payload: 'x' });
    assertProblemOn(problems, 'command', 'command is required');
    assertProblemOn(problems, 'transactionId', 'transactionId is required');
  });

  test('a 12200 with identifiers only is a valid read request', () => {
    assert.deepEqual(validateDownlink({ tsmId: 12200, tsmEv: 30, tsmDstTuid: 'TD-1', transactionId: 9 }), []);
  });

  test('a message that is not an object is one problem on the message itself', () => {
    for (const message of [null, [], 'text', 42, undefined]) {
      assert.deepEqual(validateDownlink(message), [{ field: '', message: 'message must be a JSON object' }]);
    }
  });

  test('problems on optional fields do not appear when they are absent', () => {
    assertNoProblemOn(validateDownlink({ tsmId: 1206, transactionId: 1 }), 'reportInterval');
  });
});
