import type { Thing } from '../../domain/things/thing-types.js';
import { viewThing } from '../../domain/things/thing-view.js';

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
  };
}

/** `{"data":[...]}` from JSON texts already serialized (stored messages), without parsing them again. */
export function dataArrayJson(items: readonly string[]): string {
  return `{"data":[${items.join(',')}]}`;
}
