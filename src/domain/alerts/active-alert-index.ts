import type { StoredMessage } from '../messages/message-types.js';
import { reportedBatteryLevel, type AlertThresholds } from './alert-rules.js';
import type { AlertChange, AlertType } from './alert-types.js';

/** What one batch of stored messages may change, or undefined when it changes nothing (the common case). */
export interface IngestAlertPlan {
  /** Things with an active connection alert that were heard, and gateways with active alerts that were heard. */
  heard: { at: number; tuids: string[]; gateways: { organizationId: string; gatewayTuid: string }[] } | undefined;
  /** Things that reported a level below the low threshold and have no active battery alert known here. */
  batteryLow: { at: number; tuids: string[] } | undefined;
  /** Things that reported a level at or above the ok threshold and have an active battery alert. */
  batteryOk: { at: number; tuids: string[] } | undefined;
}

/**
 * This instance's picture of the active alerts, so that ingest decides in memory whether a batch can change any
 * alert and costs no query when it cannot (nearly always). Refreshed from the store on every timer run and kept
 * up to date with the changes this instance makes. It may lag behind another instance's changes by one alert
 * interval; the lease holder's timer run evaluates every rule from the store and closes what ingest missed.
 */
export class ActiveAlertIndex {
  private deviceTuids = new Set<string>();
  private gatewayAlertTuids = new Set<string>();
  /** Organization + gateway -> things with an active alert about that gateway. */
  private gateways = new Map<string, Set<string>>();
  private batteryTuids = new Set<string>();

  /** Replaces the picture with the store's active periods. */
  replace(active: readonly AlertChange[]): void {
    this.deviceTuids = new Set();
    this.gatewayAlertTuids = new Set();
    this.gateways = new Map();
    this.batteryTuids = new Set();
    for (const period of active) this.apply(period);
  }

  /** Things with an active alert, by alert type (the metrics' open alerts). */
  counts(): Record<AlertType, number> {
    return {
      'gateway connection lost': this.gatewayAlertTuids.size,
      'device connection lost': this.deviceTuids.size,
      'battery low': this.batteryTuids.size,
    };
  }

  /** Records one opened (closedAt null) or closed period. */
  apply(change: AlertChange): void {
    const opened = change.closedAt === null;
    const update = (set: Set<string>) => (opened ? set.add(change.tuid) : set.delete(change.tuid));
    if (change.alertType === 'device connection lost') update(this.deviceTuids);
    else if (change.alertType === 'battery low') update(this.batteryTuids);
    else {
      update(this.gatewayAlertTuids);
      if (change.gatewayTuid === null) return;
      const key = gatewayKey(change.organizationId, change.gatewayTuid);
      const things = this.gateways.get(key) ?? new Set<string>();
      update(things);
      if (things.size > 0) this.gateways.set(key, things);
      else this.gateways.delete(key);
    }
  }

  /** Decides, without I/O, which alerts a batch of stored messages may open or close. */
  plan(messages: readonly StoredMessage[], thresholds: AlertThresholds): IngestAlertPlan {
    const heardTuids = new Set<string>();
    const heardGateways = new Map<string, { organizationId: string; gatewayTuid: string }>();
    const low = new Set<string>();
    const ok = new Set<string>();
    let heardAt = Infinity;
    let batteryAt = -Infinity;
    for (const message of messages) {
      if (this.deviceTuids.has(message.tuid) || this.gatewayAlertTuids.has(message.tuid)) {
        heardTuids.add(message.tuid);
        heardAt = Math.min(heardAt, message.receivedAt);
      }
      if (message.gatewayTuid !== null) {
        const key = gatewayKey(message.organizationId, message.gatewayTuid);
        if (this.gateways.has(key)) {
          heardGateways.set(key, { organizationId: message.organizationId, gatewayTuid: message.gatewayTuid });
          heardAt = Math.min(heardAt, message.receivedAt);
        }
      }
      const level = reportedBatteryLevel(message);
      if (level === undefined) continue;
      // The store decides with the thing's newest level (a late, older report does not count); the reported
      // level only tells whether asking can change anything.
      const active = this.batteryTuids.has(message.tuid);
      if (level < thresholds.batteryLowPercent && !active) low.add(message.tuid);
      else if (level >= thresholds.batteryOkPercent && active) ok.add(message.tuid);
      else continue;
      batteryAt = Math.max(batteryAt, message.receivedAt);
    }
    return {
      heard:
        heardTuids.size + heardGateways.size > 0
          ? { at: heardAt, tuids: [...heardTuids], gateways: [...heardGateways.values()] }
          : undefined,
      batteryLow: low.size > 0 ? { at: batteryAt, tuids: [...low] } : undefined,
      batteryOk: ok.size > 0 ? { at: batteryAt, tuids: [...ok] } : undefined,
    };
  }
}

function gatewayKey(organizationId: string, gatewayTuid: string): string {
  return `${organizationId}\n${gatewayTuid}`;
}
