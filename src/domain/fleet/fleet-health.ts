import type { Principal } from '../auth/principal.js';
import type { AlertType } from '../alerts/alert-types.js';
import { formatLocalDateTime } from '../alerts/local-time.js';
import { toUnixSeconds } from '../clock.js';
import { runHeavyWork } from '../workload/heavy-work-gate.js';
import type { RequestWork } from '../workload/request-work.js';
import type { DomainDeps } from '../domain-deps.js';
import { fieldProblem, validationFailed, type FieldProblem } from '../errors.js';
import { shownGroupId, unassignedGroupId } from '../groups/unassigned-group.js';
import { installationStatuses, type InstallationStatus } from '../things/thing-types.js';
import { batteryBucketLabels, type BatteryBucketLabel, type FleetHealthRows } from './fleet-health-types.js';

/** The arguments' ranges: the uptime window in days, the length of each list, the low battery threshold in percent. */
export const fleetHealthLimits = {
  days: { min: 1, max: 90, default: 30 },
  limit: { min: 1, max: 1000, default: 50 },
  batteryBelow: { min: 1, max: 100 },
} as const;

const dayMs = 24 * 3600_000;

export interface FleetHealthInput {
  days?: number;
  limit?: number;
  /** Percent; BATTERY_LOW_PERCENT when absent. */
  batteryBelow?: number;
}

/** A point in time as alert records show it: Unix seconds, and the local date-time in ALERT_TIMEZONE. */
export interface Since {
  since: number;
  sinceLocal: string;
}

export interface GroupHealth {
  /** `unassigned` for the things in no group. */
  groupId: string;
  /** Things in the group, whatever their status. */
  thingCount: number;
  installed: number;
  /** Installed things with no active connection alert. */
  online: number;
  /** online / installed; null without installed things. */
  onlineShare: number | null;
  /** Seconds the installed things were down in the window, each thing's overlapping periods counted once. */
  downtimeSeconds: number;
  /** 1 - downtime / (installed * window); null without installed things. */
  uptime: number | null;
  /** Installed things per battery bucket, every bucket present, `unknown` first. */
  battery: { bucket: BatteryBucketLabel; count: number }[];
}

export interface FleetHealth {
  /** Unix seconds. */
  generatedAt: number;
  windowDays: number;
  batteryBelow: number;
  statusCounts: Record<InstallationStatus, number> & { total: number };
  alerting: {
    thingCount: number;
    alertCount: number;
    alerts: ({ tuid: string; alertType: AlertType; severity: string | null; ruleId: string | null; value: number | null } & Since)[];
  };
  silentGateways: { count: number; gateways: ({ gatewayTuid: string; thingCount: number } & Since)[] };
  lowBattery: { count: number; things: { tuid: string; batteryLevel: number }[] };
  groups: GroupHealth[];
}

/**
 * The caller's fleet at a glance (GraphQL `fleetHealth`, REST `GET /fleet/health`): things per installation status,
 * what is alerting now and since when, silent gateways, low batteries, and a health line per deployment group. The
 * store computes the figures set-based; this checks the arguments and folds its few rows into the answer.
 * Definitions (docs/decisions.md, Fleet health): online = installed with no active connection alert; uptime over
 * the window = 1 - (each installed thing's connection-alert time in the window, overlaps merged) / (installed
 * things x window).
 */
export async function readFleetHealth(
  deps: Pick<DomainDeps, 'store' | 'clock' | 'heavyWork'> & { timeZone: string; batteryLowPercent: number },
  principal: Principal,
  input: FleetHealthInput,
  work: RequestWork = {},
): Promise<FleetHealth> {
  const problems: FieldProblem[] = [];
  const days = checkedInteger(problems, 'days', input.days, fleetHealthLimits.days.default, fleetHealthLimits.days);
  const limit = checkedInteger(problems, 'limit', input.limit, fleetHealthLimits.limit.default, fleetHealthLimits.limit);
  const batteryBelow = checkedInteger(problems, 'batteryBelow', input.batteryBelow, deps.batteryLowPercent, fleetHealthLimits.batteryBelow);
  if (problems.length > 0) throw validationFailed(problems);

  const now = deps.clock.now();
  const windowMs = days * dayMs;
  // A heavy read (workload/): under the caller's cap, and not started for an abandoned request.
  const rows = await runHeavyWork(deps, principal, work, () =>
    deps.store.fleetHealth.read({ organizationId: principal.organizationId, now, windowStart: now - windowMs, limit, batteryBelow }),
  );
  const since = (ms: number): Since => ({ since: toUnixSeconds(ms), sinceLocal: formatLocalDateTime(ms, deps.timeZone) });
  return {
    generatedAt: toUnixSeconds(now),
    windowDays: days,
    batteryBelow,
    statusCounts: statusCounts(rows),
    alerting: {
      thingCount: rows.alerting.thingCount,
      alertCount: rows.alerting.alertCount,
      alerts: rows.alerting.newest.map((alert) => ({
        tuid: alert.tuid,
        alertType: alert.alertType,
        severity: alert.severity,
        ruleId: alert.ruleId,
        value: alert.value,
        ...since(alert.openedAt),
      })),
    },
    silentGateways: {
      count: rows.silentGateways.count,
      gateways: rows.silentGateways.newest.map((g) => ({ gatewayTuid: g.gatewayTuid, thingCount: g.thingCount, ...since(g.openedAt) })),
    },
    lowBattery: {
      count: rows.lowBattery.count,
      // Rounded as the thing summary shows it.
      things: rows.lowBattery.lowest.map((thing) => ({ tuid: thing.tuid, batteryLevel: Math.round(thing.batteryLevel) })),
    },
    groups: groupHealth(rows, windowMs),
  };
}

/** The integer value of an optional argument, or its default; a problem naming it when out of range. */
function checkedInteger(
  problems: FieldProblem[],
  field: string,
  value: number | undefined,
  fallback: number,
  range: { min: number; max: number },
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < range.min || value > range.max) {
    problems.push(fieldProblem(field, `must be an integer from ${range.min} to ${range.max}`));
  }
  return value;
}

function statusCounts(rows: FleetHealthRows): FleetHealth['statusCounts'] {
  const counts = { total: 0, ...Object.fromEntries(installationStatuses.map((status) => [status, 0])) } as FleetHealth['statusCounts'];
  for (const row of rows.thingCounts) {
    counts[row.status] += row.count;
    counts.total += row.count;
  }
  return counts;
}

/** One line per group of the organization and for `unassigned`, by group id, `unassigned` last. */
function groupHealth(rows: FleetHealthRows, windowMs: number): GroupHealth[] {
  const lines = new Map<string, GroupHealth>();
  const line = (groupId: string | null): GroupHealth => {
    const id = shownGroupId(groupId);
    let found = lines.get(id);
    if (!found) {
      found = {
        groupId: id,
        thingCount: 0,
        installed: 0,
        online: 0,
        onlineShare: null,
        downtimeSeconds: 0,
        uptime: null,
        battery: batteryBucketLabels.map((bucket) => ({ bucket, count: 0 })),
      };
      lines.set(id, found);
    }
    return found;
  };
  line(null);
  for (const groupId of rows.groupIds) line(groupId);
  for (const row of rows.thingCounts) {
    const health = line(row.groupId);
    health.thingCount += row.count;
    if (row.status !== 'installed') continue;
    health.installed += row.count;
    health.online += row.online;
    health.battery.find((bucket) => bucket.bucket === row.bucket)!.count += row.count;
  }
  const downMs = new Map(rows.downtimeByGroup.map((row) => [shownGroupId(row.groupId), row.downMs]));
  for (const health of lines.values()) {
    const down = downMs.get(health.groupId) ?? 0;
    health.downtimeSeconds = down / 1000;
    if (health.installed === 0) continue;
    health.onlineShare = health.online / health.installed;
    health.uptime = uptimeOf(down, health.installed, windowMs);
  }
  return [...lines.values()].sort(
    (a, b) => order(a.groupId) - order(b.groupId) || (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0),
  );
}

const order = (groupId: string) => (groupId === unassignedGroupId ? 1 : 0);

/** The one statement of the uptime rule: the share of installed-thing time in the window without a connection alert. */
export function uptimeOf(downMs: number, installed: number, windowMs: number): number {
  return Math.min(1, Math.max(0, 1 - downMs / (installed * windowMs)));
}
