import { formatLocalDateTime } from '../../domain/alerts/local-time.js';
import type { AlertWorkItem } from '../../domain/alerts/alert-work-types.js';
import type { Gateway } from '../../domain/gateways/gateway-types.js';
import { toUnixSeconds } from '../../domain/clock.js';
import type { FleetHealth, Since } from '../../domain/fleet/fleet-health.js';
import type { Group, GroupListing } from '../../domain/groups/group-types.js';
import { shownGroupId } from '../../domain/groups/unassigned-group.js';
import type { InstallationChange } from '../../domain/installations/installation-service.js';
import type { InstallationEntry } from '../../domain/installations/installation-types.js';
import type { Thing } from '../../domain/things/thing-types.js';
import { viewThing } from '../../domain/things/thing-view.js';

/** Each resource as REST shows it (SPEC section 3), one presenter per shape: snake_case keys, Unix seconds. */

/** The thing summary of SPEC section 3: the seed's five fields, plus tuid, installation status and group. */
export function presentThingSummary(thing: Thing) {
  const view = viewThing(thing);
  return {
    tuid: view.tuid,
    battery_level: view.batteryLevel,
    timestamp: view.timestamp,
    location: view.location,
    gateway_tuid: view.gatewayTuid,
    version: view.version,
    installation_status: view.installationStatus,
    group_id: view.groupId,
    name: view.name,
    labels: view.labels,
  };
}

/** A thing's group: `unassigned` for none. */
export function presentThingGroup(thing: Thing) {
  return { tuid: thing.tuid, group_id: shownGroupId(thing.groupId) };
}

/** A group just created. */
export function presentCreatedGroup(group: Group) {
  return { group_id: group.groupId, group_description: group.description, created_at: toUnixSeconds(group.createdAt) };
}

/** A group as listed, with its number of things; `created_at` null for the pseudo-group `unassigned`. */
export function presentListedGroup(group: GroupListing) {
  return {
    group_id: shownGroupId(group.groupId),
    group_description: group.description,
    thing_count: group.thingCount,
    created_at: group.createdAt === null ? null : toUnixSeconds(group.createdAt),
  };
}

/** The answer to a status change: the thing's status and group now, and the entry that set the status. */
export function presentInstallationChange({ thing, entry }: InstallationChange) {
  return {
    tuid: thing.tuid,
    installation_status: thing.installationStatus,
    group_id: shownGroupId(thing.groupId),
    timestamp: toUnixSeconds(entry.timestamp),
    responsible: entry.responsible,
  };
}

/** One entry of a thing's installation history. */
export function presentInstallationEntry(entry: InstallationEntry) {
  return { installation_status: entry.status, timestamp: toUnixSeconds(entry.timestamp), responsible: entry.responsible };
}

/** `{"data":[...]}` from JSON texts already serialized (stored messages), without parsing them again. */
export function dataArrayJson(items: readonly string[]): string {
  return `{"data":[${items.join(',')}]}`;
}

/** The fleet overview in REST's spelling. */
export function presentFleetHealth(health: FleetHealth) {
  const since = (s: Since) => ({ since: s.since, since_local: s.sinceLocal });
  return {
    generated_at: health.generatedAt,
    window_days: health.windowDays,
    battery_below: health.batteryBelow,
    status_counts: health.statusCounts,
    alerting: {
      thing_count: health.alerting.thingCount,
      alert_count: health.alerting.alertCount,
      alerts: health.alerting.alerts.map((alert) => ({ tuid: alert.tuid, alert_type: alert.alertType, ...since(alert) })),
    },
    silent_gateways: {
      count: health.silentGateways.count,
      gateways: health.silentGateways.gateways.map((g) => ({ gateway_tuid: g.gatewayTuid, thing_count: g.thingCount, ...since(g) })),
    },
    low_battery: {
      count: health.lowBattery.count,
      things: health.lowBattery.things.map((thing) => ({ tuid: thing.tuid, battery_level: thing.batteryLevel })),
    },
    groups: health.groups.map((group) => ({
      group_id: group.groupId,
      thing_count: group.thingCount,
      installed: group.installed,
      online: group.online,
      online_share: group.onlineShare,
      downtime_seconds: group.downtimeSeconds,
      uptime: group.uptime,
      battery: group.battery,
    })),
  };
}

/** An alert period as a work item (SPEC section 16): local date-times as section 3's alert records, and Unix seconds. */
export function presentAlertWorkItem(item: AlertWorkItem, timeZone: string) {
  return {
    id: item.id,
    tuid: item.tuid,
    alert_type: item.alertType,
    severity: item.severity,
    rule_id: item.ruleId,
    value: item.value,
    from: formatLocalDateTime(item.openedAt, timeZone),
    to: item.closedAt === null ? null : formatLocalDateTime(item.closedAt, timeZone),
    from_ts: toUnixSeconds(item.openedAt),
    to_ts: item.closedAt === null ? null : toUnixSeconds(item.closedAt),
    gateway_tuid: item.gatewayTuid,
    group_id: shownGroupId(item.groupId),
    incident_id: item.incidentId,
    acknowledged: item.acknowledged && { by: item.acknowledged.by, at: toUnixSeconds(item.acknowledged.at), note: item.acknowledged.note },
  };
}

/** A gateway (SPEC section 16): times in Unix seconds. */
export function presentGateway(gateway: Gateway) {
  return {
    gateway_tuid: gateway.gatewayTuid,
    last_seen: toUnixSeconds(gateway.lastSeen),
    silent_since: gateway.silentSince === null ? null : toUnixSeconds(gateway.silentSince),
    thing_count: gateway.thingCount,
    things_silent: gateway.thingsSilent,
    mqtt_username: gateway.mqttUsername,
  };
}
