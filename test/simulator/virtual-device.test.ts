/** What a virtual device reports: catalog-valid messages with believable values. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { validateUplink } from '../../src/catalog/index.js';
import { layOutFleet } from '../../src/simulator/fleet-layout.js';
import { timedReportEvent, VirtualDevice, type DeviceUplink } from '../../src/simulator/virtual-device.js';

const start = Date.UTC(2026, 0, 1, 8, 0, 0);

function run(device: VirtualDevice, cycles: number, stepMs = 60_000): DeviceUplink[] {
  const messages: DeviceUplink[] = [];
  for (let cycle = 0; cycle < cycles; cycle += 1) messages.push(...device.nextMessages(start + cycle * stepMs));
  return messages;
}

function sensor(overrides: Partial<ConstructorParameters<typeof VirtualDevice>[0]> = {}): VirtualDevice {
  return new VirtualDevice({
    tuid: 'SIM-0001-0001',
    gatewayTuid: 'SIM-GW-0001',
    neighbours: ['SIM-0001-0002'],
    hasLocation: true,
    ...overrides,
  });
}

describe('virtual device', () => {
  test('every message passes validateUplink with no errors and no warnings, in every mode', () => {
    const device = sensor();
    const messages = run(device, 300);
    Object.assign(device.configuration, { accelerometerMode: 2, leakageMode: 1, hallMode: 1 });
    messages.push(...run(device, 300));
    for (const tsmId of [1100, 1110, 1111, 1112, 1202, 1210, 12100, 12101, 12102]) messages.push(device.produce(tsmId, start)!);
    const ids = new Set(messages.map((message) => message.tsmId));
    assert.deepEqual(
      [...ids].sort((a, b) => a - b),
      [1100, 1110, 1111, 1112, 1202, 1210, 12100, 12101, 12102],
    );
    for (const message of messages) {
      assert.deepEqual(validateUplink(message), { errors: [], warnings: [] }, JSON.stringify(message));
    }
  });

  test('the envelope names the device and its gateway, with tsmTs in whole seconds', () => {
    for (const message of run(sensor(), 20, 1_234)) {
      assert.equal(message.tsmTuid, 'SIM-0001-0001');
      assert.equal(message.tsmGw, 'SIM-GW-0001');
      assert.ok(Number.isInteger(message.tsmTs));
      assert.ok(Math.abs(message.tsmTs * 1000 - start) < 60_000);
    }
  });

  test('every scheduled report carries an event: its own (1100: 11, 1110: 10), else the time-based report event 10', () => {
    const device = sensor();
    Object.assign(device.configuration, { accelerometerMode: 2, leakageMode: 1 });
    const messages = run(device, 200);
    assert.ok(new Set(messages.map((m) => m.tsmId)).size >= 7);
    for (const message of messages) {
      assert.equal(message.tsmEv, message.tsmId === 1100 ? 11 : timedReportEvent, JSON.stringify(message));
    }
    assert.equal(timedReportEvent, 10);
  });

  test('system info (1100, event 11) is sent exactly once, in the first report', () => {
    const device = sensor();
    const first = device.nextMessages(start);
    assert.equal(first[0]?.tsmId, 1100);
    assert.equal(first[0]?.tsmEv, 11);
    assert.ok(first.some((message) => message.tsmId === 1110 && message.tsmEv === 10));
    const all = [...first, ...run(device, 500)];
    assert.equal(all.filter((message) => message.tsmId === 1100).length, 1);
  });

  test('the battery drains monotonically and slowly from near full', () => {
    const device = sensor();
    const levels = run(device, 5_000)
      .filter((message) => message.tsmId === 1110)
      .map((message) => (message as { batl: number }).batl);
    assert.ok(levels.length >= 400);
    assert.ok(levels[0]! >= 90 && levels[0]! <= 100, `starts at ${levels[0]}`);
    for (let index = 1; index < levels.length; index += 1) assert.ok(levels[index]! <= levels[index - 1]!, `rose at ${index}`);
    const drop = levels[0]! - levels.at(-1)!;
    assert.ok(drop > 0 && drop < 5, `dropped ${drop} % over 5,000 reports`);
  });

  test('weather walks within plausible indoor ranges, hall is 0 or 1, neighbours are real devices', () => {
    const messages = run(sensor(), 1_000);
    const weather = messages.filter((message) => message.tsmId === 12100) as unknown as {
      temp: number;
      humd: number;
      airp: number;
      lght: number;
    }[];
    assert.ok(weather.length >= 900);
    for (const reading of weather) {
      assert.ok(reading.temp > 10 && reading.temp < 30, `temp ${reading.temp}`);
      assert.ok(reading.humd >= 15 && reading.humd <= 95, `humd ${reading.humd}`);
      assert.ok(reading.airp >= 97_000 && reading.airp <= 104_000, `airp ${reading.airp}`);
    }
    const steps = weather.slice(1).map((reading, index) => Math.abs(reading.temp - weather[index]!.temp));
    assert.ok(Math.max(...steps) < 1, 'temperature moves by small steps');
    const neighbours = messages.filter((message) => message.tsmId === 1202) as unknown as { tuid: string; rssi: number }[];
    assert.ok(neighbours.length > 0 && neighbours.every((message) => message.tuid === 'SIM-0001-0002'));
  });

  test('12200 modes switch sensors off and on; low-power storage silences the device', () => {
    const device = sensor({ hasLocation: false });
    device.nextMessages(start);
    Object.assign(device.configuration, { weatherMode: -1, hallMode: -1 });
    const quiet = run(device, 20);
    assert.ok(quiet.every((message) => message.tsmId !== 12100 && message.tsmId !== 12101));
    device.configuration.lowPowerStorage = true;
    assert.deepEqual(device.nextMessages(start), []);
  });

  test('a report interval set by 1500 holds the device back until it is due', () => {
    const device = sensor();
    device.nextMessages(start);
    device.applyIntervals(start, { reportInterval: 600 });
    assert.equal(device.configuration.reportInterval, 600);
    assert.deepEqual(device.nextMessages(start + 599_000), []);
    assert.ok(device.nextMessages(start + 600_000).length > 0);
    assert.deepEqual(device.nextMessages(start + 601_000), []);
  });

  test('a device standing in for one that already reported continues after its last tsmTs, repeating none', () => {
    const first = layOutFleet('again', 1, 1)[0]!.devices[0]!;
    const sent = [0, 100, 200, 300].flatMap((offset) => first.nextMessages(start + offset).map((message) => message.tsmTs as number));
    assert.equal(first.lastReportedTs, Math.max(...sent));
    // The same TUID in a later fleet, started within the same second: its reports come after the first's.
    const second = layOutFleet('again', 1, 1, first.lastReportedTs)[0]!.devices[0]!;
    const next = second.nextMessages(start + 400).map((message) => message.tsmTs as number);
    assert.ok(next.length > 0 && next.every((ts) => ts > Math.max(...sent)), `${next.join(',')} after ${sent.join(',')}`);
    assert.ok(
      layOutFleet('again', 1, 1)[0]!
        .devices[0]!.nextMessages(start + 400)
        .some((message) => sent.includes(message.tsmTs as number)),
      'without it the second fleet repeats',
    );
  });

  test('the fleet layout spreads devices evenly with valid, prefixed, unique TUIDs', () => {
    const layout = layOutFleet('demo.A', 3, 10);
    assert.deepEqual(
      layout.map((gateway) => gateway.devices.length),
      [4, 3, 3],
    );
    assert.deepEqual(
      layout.map((gateway) => gateway.gatewayTuid),
      ['demo.A-GW-0001', 'demo.A-GW-0002', 'demo.A-GW-0003'],
    );
    const tuids = layout.flatMap((gateway) => [gateway.gatewayTuid, ...gateway.devices.map((device) => device.tuid)]);
    assert.equal(new Set(tuids).size, 13);
    for (const tuid of tuids) assert.match(tuid, /^[A-Za-z0-9._:-]{1,64}$/);
    assert.equal(layout[1]!.devices[0]!.tuid, 'demo.A-0002-0001');
    assert.throws(() => layOutFleet('bad prefix', 1, 1), RangeError);
    assert.throws(() => layOutFleet('x'.repeat(41), 1, 1), RangeError);
  });
});
