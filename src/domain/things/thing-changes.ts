import type { DomainEventBus } from '../events.js';
import { shownGroupId } from '../groups/unassigned-group.js';
import { sameLabels } from './thing-labels.js';
import type { Thing, ThingChanges } from './thing-types.js';

export type { ThingChanges } from './thing-types.js';

/** The changes between two states of a thing (`before` undefined: it was created). Empty when nothing changed. */
export function changesBetween(before: Thing | undefined, after: Thing): ThingChanges {
  const changes: ThingChanges = {};
  if ((before?.name ?? null) !== after.name || (before === undefined && after.name !== null)) {
    changes.name = { from: before?.name ?? null, to: after.name };
  }
  if (before === undefined ? Object.keys(after.labels).length > 0 : !sameLabels(before.labels, after.labels)) {
    changes.labels = { from: before?.labels ?? null, to: after.labels };
  }
  if (before === undefined || before.groupId !== after.groupId) {
    changes.group_id = { from: before ? shownGroupId(before.groupId) : null, to: shownGroupId(after.groupId) };
  }
  if (before === undefined || before.installationStatus !== after.installationStatus) {
    changes.installation_status = { from: before?.installationStatus ?? null, to: after.installationStatus };
  }
  return changes;
}

/** Tells the event bus that a thing changed (after its transaction committed); nothing when `changes` is empty. */
export function emitThingChanged(
  events: DomainEventBus | undefined,
  thing: Pick<Thing, 'organizationId' | 'tuid'>,
  changes: ThingChanges,
  responsible: string,
): void {
  if (!events || Object.keys(changes).length === 0) return;
  events.emit('thingChanged', { organizationId: thing.organizationId, tuid: thing.tuid, changes, responsible });
}
