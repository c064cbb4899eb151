/** How a virtual device answers commands: a table of command and expected answer, then the state it leaves. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { validateUplink } from '../../src/catalog/index.js';
import { respondToCommands } from '../../src/simulator/command-responder.js';
import { VirtualDevice } from '../../src/simulator/virtual-device.js';

const now = Date.UTC(2026, 0, 1, 12, 0, 0);
const nowS = Math.floor(now / 1000);
const from = { tsmTs: nowS, tsmTuid: 'SIM-0001-0001', tsmGw: 'SIM-GW-0001' };

function device(): VirtualDevice {
  return new VirtualDevice({ tuid: 'SIM-0001-0001', gatewayTuid: 'SIM-GW-0001', neighbours: ['SIM-0001-0002'] });
}

const cases: { name: string; commands: unknown[]; answers: Record<string, unknown>[] }[] = [
  {
    name: 'a 1500 is echoed with event 31, the same fields and transactionId, without tsmDstTuid',
    commands: [{ tsmId: 1500, tsmEv: 30, tsmDstTuid: 'SIM-0001-0001', transactionId: 42, measurementInterval: 30, reportInterval: 120 }],
    answers: [{ tsmId: 1500, tsmEv: 31, ...from, transactionId: 42, measurementInterval: 30, reportInterval: 120 }],
  },
  {
    name: 'a 12200 read request gets the current modes',
    commands: [{ tsmId: 12200, tsmEv: 30, tsmDstTuid: 'SIM-0001-0001', transactionId: 7 }],
    answers: [{ tsmId: 12200, tsmEv: 31, ...from, transactionId: 7, accelerometerMode: 0, weatherMode: 0, hallMode: 0, leakageMode: 0 }],
  },
  {
    name: 'a 12200 write is echoed',
    commands: [{ tsmId: 12200, tsmEv: 30, transactionId: 8, hallMode: 1 }],
    answers: [{ tsmId: 12200, tsmEv: 31, ...from, transactionId: 8, hallMode: 1 }],
  },
  {
    name: 'a 1101 gets the requested message with event 33',
    commands: [{ tsmId: 1101, tsmEv: 32, transactionId: 9, requestTsmId: 1100 }],
    answers: [{ tsmId: 1100, tsmEv: 33, ...from, transactionId: 9, swVersion: '1.4.2', modelCode: 'TD-ENV-01' }],
  },
  {
    name: 'a 1101 for something the device cannot supply gets 1102',
    commands: [{ tsmId: 1101, tsmEv: 32, transactionId: 10, requestTsmId: 1212 }],
    answers: [{ tsmId: 1102, ...from, transactionId: 10 }],
  },
  {
    name: 'a remote command is answered as unsupported',
    commands: [{ tsmId: 1402, tsmEv: 35, transactionId: 11, command: 'reboot' }],
    answers: [{ tsmId: 1402, tsmEv: 36, ...from, result: -2, payload: 'unsupported command', transactionId: 11 }],
  },
  {
    name: 'a command for another tuid is ignored',
    commands: [{ tsmId: 1500, tsmEv: 30, tsmDstTuid: 'OTHER-1', transactionId: 1, reportInterval: 5 }],
    answers: [],
  },
  {
    name: 'an invalid configuration is not echoed',
    commands: [{ tsmId: 1500, tsmEv: 30, transactionId: 1, reportInterval: -5 }],
    answers: [],
  },
  { name: 'a configuration without transactionId is not echoed', commands: [{ tsmId: 1504, tsmEv: 30, enabled: 0 }], answers: [] },
  {
    name: 'non-objects and ids that are no configuration are ignored',
    commands: [null, 3, 'x', [], { tsmId: 1404, tsmEv: 23, transactionId: 2 }],
    answers: [],
  },
];

describe('respondToCommands', () => {
  for (const { name, commands, answers } of cases) {
    test(name, () => {
      const replies = respondToCommands(device(), commands, now);
      assert.equal(replies.length, answers.length);
      answers.forEach((expected, index) => {
        const reply = replies[index] as Record<string, unknown>;
        for (const [key, value] of Object.entries(expected)) assert.deepEqual(reply[key], value, `${key} of ${JSON.stringify(reply)}`);
        assert.equal('tsmDstTuid' in reply, false);
        assert.deepEqual(validateUplink(reply), { errors: [], warnings: [] });
      });
    });
  }

  test('a 1500 applies its intervals: the device then keeps its own report interval', () => {
    const sensor = device();
    sensor.nextMessages(now);
    respondToCommands(sensor, [{ tsmId: 1500, tsmEv: 30, transactionId: 1, measurementInterval: 30, reportInterval: 120 }], now);
    assert.equal(sensor.configuration.measurementInterval, 30);
    assert.equal(sensor.configuration.reportInterval, 120);
    assert.deepEqual(sensor.nextMessages(now + 60_000), []);
    assert.ok(sensor.nextMessages(now + 120_000).length > 0);
  });

  test('a 12200 write changes the modes that a later read request reports', () => {
    const sensor = device();
    respondToCommands(sensor, [{ tsmId: 12200, tsmEv: 30, transactionId: 1, weatherMode: -1, leakageMode: 1 }], now);
    const [read] = respondToCommands(sensor, [{ tsmId: 12200, tsmEv: 30, transactionId: 2 }], now);
    assert.deepEqual(read, {
      tsmId: 12200,
      tsmEv: 31,
      ...from,
      transactionId: 2,
      accelerometerMode: 0,
      weatherMode: -1,
      hallMode: 0,
      leakageMode: 1,
    });
    assert.ok(sensor.nextMessages(now).every((message) => message.tsmId !== 12100));
  });

  test('several commands in one array are answered in order; 1504 puts the device to sleep', () => {
    const sensor = device();
    const replies = respondToCommands(
      sensor,
      [
        { tsmId: 1505, tsmEv: 30, transactionId: 1, profileId: 1, duration: 30 },
        { tsmId: 1504, tsmEv: 30, transactionId: 2, enabled: 1 },
      ],
      now,
    );
    assert.deepEqual(
      replies.map((reply) => [reply.tsmId, reply.tsmEv, reply.transactionId]),
      [
        [1505, 31, 1],
        [1504, 31, 2],
      ],
    );
    assert.equal(sensor.configuration.lowPowerStorage, true);
    assert.deepEqual(sensor.nextMessages(now), []);
  });
});
