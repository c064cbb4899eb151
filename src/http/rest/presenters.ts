import { unassignedGroupId } from '../../domain/messages/message-types.js';
import type { Thing } from '../../domain/things/thing-types.js';

/** The thing summary of SPEC section 3: the seed's five fields, plus tuid, installation status and group. */
export function presentThingSummary(thing: Thing) {
  const { summary } = thing;
  return {
    tuid: thing.tuid,
    battery_level: summary.batteryLevel === null ? null : Math.round(summary.batteryLevel),
    timestamp: summary.timestamp,
    location: summary.location,
    gateway_tuid: summary.gatewayTuid,
    version: summary.version ?? 'unknown',
    installation_status: thing.installationStatus,
    group_id: thing.groupId ?? unassignedGroupId,
  };
}

/** Milliseconds on the platform's clock to the Unix seconds every REST time uses. */
export function unixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** `{"data":[...]}` from JSON texts already serialized (stored messages), without parsing them again. */
export function dataArrayJson(items: readonly string[]): string {
  return `{"data":[${items.join(',')}]}`;
}
