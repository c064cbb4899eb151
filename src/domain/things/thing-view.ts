import { shownGroupId } from '../groups/unassigned-group.js';
import type { Thing } from './thing-types.js';

/**
 * A thing's summary as every interface shows it (SPEC section 3): battery rounded to a whole percent (the message
 * keeps the exact value), `unknown` for a version not yet reported, `unassigned` for no group. REST renames the
 * keys to snake_case; GraphQL uses them as they are.
 */
export function viewThing(thing: Thing) {
  const { summary } = thing;
  return {
    tuid: thing.tuid,
    batteryLevel: summary.batteryLevel === null ? null : Math.round(summary.batteryLevel),
    timestamp: summary.timestamp,
    location: summary.location,
    gatewayTuid: summary.gatewayTuid,
    version: summary.version ?? 'unknown',
    installationStatus: thing.installationStatus,
    groupId: shownGroupId(thing.groupId),
    name: thing.name,
    labels: thing.labels,
  };
}
