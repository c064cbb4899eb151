import type { Config } from '../../config/config.js';
import { summarySources } from '../things/summary-rules.js';
import type { AlertType } from './alert-types.js';

/**
 * The alert rules of SPEC section 7, as pure functions. The engine evaluates them set-based in SQL
 * (`src/store/alert-evaluation-store.ts`), parameterized by these functions, so the comparisons live here once:
 *
 * - `device connection lost`: the thing was last heard (platform clock, at arrival) more than DEVICE_TIMEOUT_S ago.
 * - `gateway connection lost`: nothing arrived through the thing's last gateway for more than GATEWAY_TIMEOUT_S.
 * - `battery low`: opens below `batteryLowPercent`, closes at `batteryOkPercent` or more, keeps its state between.
 *
 * Retired and quarantined things raise no connection alerts (they are out of service or known to be broken).
 */

export interface AlertThresholds {
  gatewayTimeoutMs: number;
  deviceTimeoutMs: number;
  batteryLowPercent: number;
  batteryOkPercent: number;
}

export function alertThresholds(
  config: Pick<Config, 'gatewayTimeoutS' | 'deviceTimeoutS' | 'batteryLowPercent' | 'batteryOkPercent'>,
): AlertThresholds {
  return {
    gatewayTimeoutMs: config.gatewayTimeoutS * 1000,
    deviceTimeoutMs: config.deviceTimeoutS * 1000,
    batteryLowPercent: config.batteryLowPercent,
    batteryOkPercent: config.batteryOkPercent,
  };
}

/** Installation statuses whose things raise no connection alerts. */
export const connectionAlertExemptStatuses: readonly string[] = ['retired', 'quarantine'];

export function raisesConnectionAlerts(installationStatus: string): boolean {
  return !connectionAlertExemptStatuses.includes(installationStatus);
}

/** Heard strictly before this instant means silent at `now`. */
export function silenceCutoff(now: number, timeoutMs: number): number {
  return now - timeoutMs;
}

/** Silent when `now - heardAt > timeout`. Never heard is not silent: there is no connection to lose. */
export function isSilent(heardAt: number | null, now: number, timeoutMs: number): boolean {
  return heardAt !== null && heardAt < silenceCutoff(now, timeoutMs);
}

/**
 * When a silence alert begins: the moment the silence exceeded the timeout, not when the engine noticed. This
 * keeps a period's `from` independent of the timer's phase and of which instance ran it.
 */
export function silenceStart(heardAt: number, timeoutMs: number): number {
  return heardAt + timeoutMs;
}

/** Battery low with hysteresis: the next state given the level and the current state. Unknown level keeps it. */
export function nextBatteryLow(
  level: number | null,
  currentlyLow: boolean,
  thresholds: Pick<AlertThresholds, 'batteryLowPercent' | 'batteryOkPercent'>,
): boolean {
  if (level === null) return currentlyLow;
  if (level < thresholds.batteryLowPercent) return true;
  if (level >= thresholds.batteryOkPercent) return false;
  return currentlyLow;
}

/** What the rules look at for one thing. */
export interface ThingAlertState {
  installationStatus: string;
  /** Arrival of its newest message on the platform's clock (ms), null if never heard. */
  lastHeardAt: number | null;
  lastHeardGatewayTuid: string | null;
  /** Latest arrival of any message through `lastHeardGatewayTuid` (ms). */
  gatewayLastHeardAt: number | null;
  batteryLevel: number | null;
  /** Whether a battery low period is active now (hysteresis). */
  batteryLow: boolean;
}

/** The alert types that should be active on a thing at `now`. */
export function expectedAlertTypes(state: ThingAlertState, now: number, thresholds: AlertThresholds): AlertType[] {
  const active: AlertType[] = [];
  if (raisesConnectionAlerts(state.installationStatus)) {
    if (state.lastHeardGatewayTuid !== null && isSilent(state.gatewayLastHeardAt, now, thresholds.gatewayTimeoutMs))
      active.push('gateway connection lost');
    if (isSilent(state.lastHeardAt, now, thresholds.deviceTimeoutMs)) active.push('device connection lost');
  }
  if (nextBatteryLow(state.batteryLevel, state.batteryLow, thresholds)) active.push('battery low');
  return active;
}

/** The battery level a stored message reports (a 1110 with a numeric `batl`), else undefined. */
export function reportedBatteryLevel(message: { tsmId: number; message: Readonly<Record<string, unknown>> }): number | undefined {
  if (message.tsmId !== summarySources.battery.tsmId) return undefined;
  const level = message.message[summarySources.battery.field];
  return typeof level === 'number' && Number.isFinite(level) ? level : undefined;
}
