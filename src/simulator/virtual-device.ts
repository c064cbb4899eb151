/**
 * One virtual sensor: its identity, configuration and what it reports. It never touches MQTT or timers; the
 * gateway asks it for its next report when the fleet's pacing reaches it, so 10,000 devices cost no timers.
 */
import { rssiToDbm, type AnyCatalogMessage } from '../catalog/index.js';
import { createRandom, hashString, roundTo, type RandomSource } from './random.js';
import { SensorModel } from './sensor-model.js';

/** What a virtual device sends: a catalog message with the uplink envelope filled in. */
export type DeviceUplink = AnyCatalogMessage & { tsmTs: number; tsmTuid: string; tsmGw: string };

/** The device's settings, as 1500 and 12200 (and 1504, 12210-12212) change them. */
export interface DeviceConfiguration {
  /** 1500, unit not shown by the seed; the simulator reads seconds. */
  measurementInterval: number;
  /** 1500, seconds. Only enforced once a 1500 set it (see `isDue`). */
  reportInterval: number;
  accelerometerMode: 0 | 1 | 2;
  weatherMode: -1 | 0;
  hallMode: -1 | 0 | 1;
  leakageMode: 0 | 1;
  /** 1504 enabled: deep sleep, nothing is reported until it is switched off again. */
  lowPowerStorage: boolean;
}

export interface VirtualDeviceOptions {
  tuid: string;
  gatewayTuid: string;
  /** TUIDs of nearby devices, reported in 1202 neighbour messages. */
  neighbours?: readonly string[];
  /** Cellular location (1210) is reported only by devices that have it. */
  hasLocation?: boolean;
  /** Defaults to a generator seeded by the TUID, so a device behaves the same in every run. */
  random?: RandomSource;
  /** Milliseconds since epoch when the device "powered on" (for 1112 uptime). Defaults to the first report. */
  startedAt?: number;
  /**
   * Unix seconds its reports come after: a device standing in for one that already reported (the same TUID in an
   * earlier fleet) repeats none of its messages. Default 0.
   */
  reportsAfterTs?: number;
}

/**
 * The event of a scheduled (time-based) report. Real devices send an event on every message; the seed shows 10 on
 * the periodic battery report (1110) and leaves the event of other reports unshown, so the simulator uses 10, the
 * time-based report event, on every report it sends on schedule (docs/decisions.md).
 */
export const timedReportEvent = 10;

const batteryEvery = 10;
const neighbourEvery = 5;
const orientationEvery = 5;
const locationEvery = 50;

export class VirtualDevice {
  readonly tuid: string;
  readonly gatewayTuid: string;
  readonly neighbours: readonly string[];
  readonly hasLocation: boolean;
  readonly configuration: DeviceConfiguration = {
    measurementInterval: 60,
    reportInterval: 300,
    accelerometerMode: 0,
    weatherMode: 0,
    hallMode: 0,
    leakageMode: 0,
    lowPowerStorage: false,
  };
  private readonly random: RandomSource;
  private readonly sensors: SensorModel;
  private readonly location: { lat: number; lon: number };
  private cycle = 0;
  private startedAt: number | undefined;
  /** Set by a 1500: from then on the device keeps its own report interval instead of the fleet's pace. */
  private ownSchedule = false;
  private nextDueAt = 0;
  /** tsmTs of the last report, Unix seconds. */
  private lastReportTs = 0;

  constructor(options: VirtualDeviceOptions) {
    this.tuid = options.tuid;
    this.gatewayTuid = options.gatewayTuid;
    this.neighbours = options.neighbours ?? [];
    this.hasLocation = options.hasLocation ?? false;
    this.random = options.random ?? createRandom(hashString(options.tuid));
    this.startedAt = options.startedAt;
    this.lastReportTs = options.reportsAfterTs ?? 0;
    this.sensors = new SensorModel(this.random);
    // Around Helsinki, spread over a few kilometres so a map of the fleet is not one dot.
    this.location = { lat: roundTo(60.15 + this.random() * 0.08, 5), lon: roundTo(24.88 + this.random() * 0.15, 5) };
  }

  /** tsmTs of the newest report, Unix seconds (0 before the first, or `reportsAfterTs`). */
  get lastReportedTs(): number {
    return this.lastReportTs;
  }

  /** Percent, as last reported or about to be. */
  get batteryLevel(): number {
    return this.sensors.batteryLevel();
  }

  /**
   * Whether the device has something to say at `now`. Until a 1500 sets its intervals the fleet's rate stands in
   * for the intervals of many devices, so the device is always due; afterwards it reports at most once per
   * reportInterval seconds, and never in low-power storage.
   */
  isDue(now: number): boolean {
    return !this.configuration.lowPowerStorage && now >= this.nextDueAt;
  }

  /**
   * The messages of the device's next report, or [] when it is not due. The first report starts with system info
   * (1100, event 11), battery (event 10) and location; later ones carry weather and hall every time (as the 12200
   * modes allow), battery every 10th, a 1202 neighbour every 5th and orientation or leakage when enabled. Every
   * message of a scheduled report carries an event (`timedReportEvent` unless its id has its own).
   */
  nextMessages(now: number): DeviceUplink[] {
    if (!this.isDue(now)) return [];
    this.startedAt ??= now;
    // Each report gets a later second than the one before, even when the fleet's pace asks for several reports a
    // second: a message repeating an earlier one's id, time and content would be stored once (a duplicate), and
    // a real sensor never sends the same reading twice.
    this.lastReportTs = Math.max(Math.floor(now / 1000), this.lastReportTs + 1);
    const first = this.cycle === 0;
    const config = this.configuration;
    const messages: DeviceUplink[] = [];
    if (first) messages.push(this.systemInfo(now));
    if (first || this.cycle % batteryEvery === 0) messages.push(this.battery(now));
    if (this.hasLocation && this.cycle % locationEvery === 0) messages.push(this.cellularLocation(now));
    if (config.weatherMode !== -1) messages.push(this.weather(now));
    const hall = this.sensors.measureHall();
    if (config.hallMode === 0 || (config.hallMode === 1 && hall.changed)) {
      messages.push({ tsmId: 12101, ...this.envelope(now), hall: hall.hall, hallCount: hall.hallCount });
    }
    if (config.accelerometerMode !== 0 && this.cycle % orientationEvery === 0) messages.push(this.orientation(now));
    if (config.leakageMode === 1) messages.push(this.leakage(now));
    const neighbour = this.neighbours[Math.floor(this.cycle / neighbourEvery) % Math.max(1, this.neighbours.length)];
    if (neighbour !== undefined && this.cycle % neighbourEvery === neighbourEvery - 1) messages.push(this.neighbourData(now, neighbour));
    this.sensors.drainBattery(messages.length);
    this.cycle += 1;
    if (this.ownSchedule) this.nextDueAt = now + config.reportInterval * 1000;
    return messages.map((message) => ('tsmEv' in message ? message : { ...message, tsmEv: timedReportEvent }));
  }

  /**
   * One message of this id as the device would report it now (for a 1101 request), or undefined when the device
   * cannot supply it: configuration ids are read with their own requests (12200), not with 1101. Does not advance
   * the report cycle.
   */
  produce(tsmId: number, now: number): DeviceUplink | undefined {
    switch (tsmId) {
      case 1100:
        return this.systemInfo(now);
      case 1110:
        return this.battery(now);
      case 1111:
        return this.orientation(now);
      case 1112:
        return { tsmId: 1112, ...this.envelope(now), uptime: Math.max(0, Math.floor((now - (this.startedAt ?? now)) / 1000)) };
      case 1202:
        return this.neighbours[0] === undefined ? undefined : this.neighbourData(now, this.neighbours[0]);
      case 1210:
        return this.hasLocation ? this.cellularLocation(now) : undefined;
      case 12100:
        return this.weather(now);
      case 12101: {
        const hall = this.sensors.measureHall();
        return { tsmId: 12101, ...this.envelope(now), hall: hall.hall, hallCount: hall.hallCount };
      }
      case 12102:
        return this.leakage(now);
      default:
        return undefined;
    }
  }

  /** The current 12200 modes as the device reports them in answer to a read request (event 31). */
  environmentConfiguration(now: number, transactionId: number): DeviceUplink {
    const { accelerometerMode, weatherMode, hallMode, leakageMode } = this.configuration;
    return { tsmId: 12200, tsmEv: 31, ...this.envelope(now), transactionId, accelerometerMode, weatherMode, hallMode, leakageMode };
  }

  /**
   * Applies intervals from a 1500. A report interval switches the device to its own schedule, starting now: a
   * device told to report hourly goes quiet, as the person who sent the command expects.
   */
  applyIntervals(now: number, intervals: { measurementInterval?: number; reportInterval?: number }): void {
    if (intervals.measurementInterval !== undefined) this.configuration.measurementInterval = intervals.measurementInterval;
    if (intervals.reportInterval !== undefined) {
      this.configuration.reportInterval = intervals.reportInterval;
      this.ownSchedule = true;
      this.nextDueAt = now + intervals.reportInterval * 1000;
    }
  }

  /**
   * The envelope of a message sent now: tsmTs in whole seconds, as the catalog expects, never before the last
   * report's (a device pushed ahead of the clock by fast reports keeps its own time).
   */
  envelope(now: number): { tsmTs: number; tsmTuid: string; tsmGw: string } {
    return { tsmTs: Math.max(Math.floor(now / 1000), this.lastReportTs), tsmTuid: this.tuid, tsmGw: this.gatewayTuid };
  }

  private systemInfo(now: number): DeviceUplink {
    const psn = `PSN${hashString(`${this.tuid}/psn`).toString(16).toUpperCase().padStart(8, '0')}`;
    return { tsmId: 1100, tsmEv: 11, ...this.envelope(now), swVersion: '1.4.2', modelCode: 'TD-ENV-01', psn };
  }

  private battery(now: number): DeviceUplink {
    return { tsmId: 1110, tsmEv: 10, ...this.envelope(now), batl: this.sensors.batteryLevel() };
  }

  private weather(now: number): DeviceUplink {
    return { tsmId: 12100, ...this.envelope(now), ...this.sensors.measureWeather(now) };
  }

  private orientation(now: number): DeviceUplink {
    return { tsmId: 1111, ...this.envelope(now), ...this.sensors.measureOrientation() };
  }

  private leakage(now: number): DeviceUplink {
    return { tsmId: 12102, ...this.envelope(now), resistance: this.sensors.measureResistance() };
  }

  private cellularLocation(now: number): DeviceUplink {
    return { tsmId: 1210, ...this.envelope(now), ...this.location, lacr: 500 };
  }

  private neighbourData(now: number, neighbour: string): DeviceUplink {
    const rssi = this.sensors.measureRssi(neighbour);
    return { tsmId: 1202, ...this.envelope(now), tuid: neighbour, rssi, rssiDbm: roundTo(rssiToDbm(rssi), 1), neighNodeInfo: 2 };
  }
}
