/**
 * The physical side of a virtual sensor: battery, weather, door switch, orientation, leakage and radio signal,
 * each a slow random walk so a chart of simulated data looks like a building's rather than noise. No envelope
 * and no catalog knowledge here: virtual-device.ts turns these readings into messages.
 */
import { clamp, roundTo, type RandomSource } from './random.js';

/**
 * Battery percent lost per message sent. Radio time dominates a sensor's consumption, so drain follows traffic:
 * 100,000 messages cost about 20 %, which keeps a long demo visibly draining but never empty.
 */
const batteryDrainPerMessage = 0.0002;

export interface WeatherReading {
  airp: number;
  humd: number;
  temp: number;
  lght: number;
}

export interface HallReading {
  hall: 0 | 1;
  hallCount: number;
  changed: boolean;
}

/** Mutable sensor state of one device. Every method moves the walk one measurement forward. */
export class SensorModel {
  private battery: number;
  private temperature: number;
  private humidity: number;
  private pressure: number;
  private hallState: 0 | 1;
  private resistance: number;
  private readonly baseTemperature: number;
  private readonly neighbourRssi = new Map<string, number>();

  constructor(private readonly random: RandomSource) {
    this.battery = 92 + random() * 8;
    this.baseTemperature = 19 + random() * 4;
    this.temperature = this.baseTemperature;
    this.humidity = 35 + random() * 20;
    this.pressure = 100_800 + random() * 1_000;
    this.hallState = random() < 0.5 ? 0 : 1;
    this.resistance = 50_000 + random() * 5_000;
  }

  /** Battery level in percent, two decimals; never rises (no charging is simulated). */
  batteryLevel(): number {
    return roundTo(this.battery, 2);
  }

  /** Accounts for the energy of sending `count` messages. */
  drainBattery(count: number): void {
    this.battery = Math.max(0, this.battery - batteryDrainPerMessage * count);
  }

  /**
   * Indoor weather: temperature pulled back towards the room's own set point, humidity and pressure drifting
   * within plausible bounds, light following the time of day (UTC, as the simulator has no site).
   */
  measureWeather(now: number): WeatherReading {
    const random = this.random;
    this.temperature += (this.baseTemperature - this.temperature) * 0.05 + (random() - 0.5) * 0.3;
    this.humidity = clamp(this.humidity + (random() - 0.5) * 1.2, 15, 95);
    this.pressure = clamp(this.pressure + (random() - 0.5) * 30, 97_000, 104_000);
    const hour = (now / 3_600_000) % 24;
    const daylight = Math.max(0, Math.sin((Math.PI * (hour - 6)) / 12));
    const light = daylight * 600 + 40 + random() * 30;
    return {
      airp: Math.round(this.pressure),
      humd: roundTo(this.humidity, 1),
      temp: roundTo(this.temperature, 1),
      lght: Math.round(light),
    };
  }

  /**
   * A door or window switch: mostly still, sometimes changing state, sometimes opened and closed again within
   * one period (hallCount 2 with the state unchanged, as the seed describes an A-B-A cycle).
   */
  measureHall(): HallReading {
    const draw = this.random();
    if (draw < 0.03) {
      this.hallState = this.hallState === 0 ? 1 : 0;
      return { hall: this.hallState, hallCount: 1, changed: true };
    }
    if (draw < 0.05) return { hall: this.hallState, hallCount: 2, changed: true };
    return { hall: this.hallState, hallCount: 0, changed: false };
  }

  /** Acceleration in g of a sensor lying still on a wall: gravity on z, a little vibration on every axis. */
  measureOrientation(): { accx: number; accy: number; accz: number } {
    const jitter = () => (this.random() - 0.5) * 0.04;
    return { accx: roundTo(jitter(), 3), accy: roundTo(jitter(), 3), accz: roundTo(0.98 + jitter(), 3) };
  }

  /** Leakage ADC reading: high and steady while dry. */
  measureResistance(): number {
    this.resistance = clamp(this.resistance + (this.random() - 0.5) * 400, 40_000, 60_000);
    return Math.round(this.resistance);
  }

  /** Raw RSSI (0..255) of a neighbour, a walk per neighbour around a level set by the first draw. */
  measureRssi(neighbourTuid: string): number {
    const previous = this.neighbourRssi.get(neighbourTuid) ?? 130 + this.random() * 80;
    const next = clamp(previous + (this.random() - 0.5) * 8, 60, 240);
    this.neighbourRssi.set(neighbourTuid, next);
    return Math.round(next);
  }
}
