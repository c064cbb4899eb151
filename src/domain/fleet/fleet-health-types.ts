import type { AlertType } from '../alerts/alert-types.js';
import type { InstallationStatus } from '../things/thing-types.js';

/** The alert types that mean a thing is not connected: online and uptime look at these, not at `battery low`. */
export const connectionAlertTypes: readonly AlertType[] = ['device connection lost', 'gateway connection lost'];

/**
 * The fixed battery buckets of a group's health line, by the exact stored level (as the battery low rule compares
 * it): a level belongs to the first bucket whose `below` it is under; `unknown` is a thing that never reported one.
 * Labels are whole percents: 14.6 is under 15, so it counts in `0-14` although the summary rounds it to 15.
 */
export const batteryBuckets = [
  { label: '0-14', below: 15 },
  { label: '15-29', below: 30 },
  { label: '30-49', below: 50 },
  { label: '50-79', below: 80 },
  { label: '80-100', below: Infinity },
] as const;
export type BatteryBucketLabel = (typeof batteryBuckets)[number]['label'] | 'unknown';
export const batteryBucketLabels: readonly BatteryBucketLabel[] = ['unknown', ...batteryBuckets.map((bucket) => bucket.label)];

/** One active alert period: its thing, type and start (ms on the platform's clock). */
export interface ActiveAlertRow {
  tuid: string;
  alertType: AlertType;
  openedAt: number;
  /** critical, warning or info; null where the period has none. */
  severity: string | null;
  /** A rule period's rule (its name is alertType); null for built-in alerts. */
  ruleId: string | null;
  /** The value that opened the period; null when none. */
  value: number | null;
}

/** A gateway with an open `gateway connection lost`: since its earliest open period, on how many things. */
export interface SilentGatewayRow {
  gatewayTuid: string;
  openedAt: number;
  thingCount: number;
}

/** What the store answers for one organization; the domain adds the window's figures and the local times. */
export interface FleetHealthRows {
  /**
   * Things per group (null: no group), installation status and battery bucket, and how many of them have no active
   * connection alert: at most (groups + 1) x 5 x 6 rows, from one pass over the organization's things.
   */
  thingCounts: { groupId: string | null; status: InstallationStatus; bucket: BatteryBucketLabel; count: number; online: number }[];
  /** Per group, the union of connection-alert periods of its installed things, clipped to the window (ms). */
  downtimeByGroup: { groupId: string | null; downMs: number }[];
  /** Every group of the organization (a group without things still has a health line). */
  groupIds: string[];
  alerting: { thingCount: number; alertCount: number; newest: ActiveAlertRow[] };
  silentGateways: { count: number; newest: SilentGatewayRow[] };
  lowBattery: { count: number; lowest: { tuid: string; batteryLevel: number }[] };
}

/** What the store is asked. */
export interface FleetHealthQuery {
  organizationId: string;
  now: number;
  windowStart: number;
  limit: number;
  batteryBelow: number;
}
