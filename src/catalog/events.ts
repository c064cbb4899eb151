/**
 * The `tsmEv` table of seed part 6. Which messages use an event is not written here but derived
 * from the message definitions, so the two lists cannot disagree.
 */
import { messageDefinitions } from './definitions/index.js';
import { eventUses } from './event-uses.js';
import type { EventDefinition, MessageDefinition } from './types.js';

function eventsOf(definition: MessageDefinition): readonly number[] {
  return [...definition.events, ...(definition.variants ?? []).flatMap((variant) => variant.events)];
}

function tsmIdsUsing(eventId: number): number[] {
  const definitions: readonly MessageDefinition[] = messageDefinitions;
  return definitions.filter((definition) => eventsOf(definition).includes(eventId)).map((definition) => definition.tsmId);
}

/** The event table with, for each event, the message ids that use it. Ordered by event id. */
export const eventDefinitions: readonly EventDefinition[] = eventUses.map((event) => ({
  ...event,
  tsmIds: tsmIdsUsing(event.id),
}));

/** The row of one event id, or undefined for an event the seed does not list. */
export function getEventDefinition(eventId: number): EventDefinition | undefined {
  return eventDefinitions.find((event) => event.id === eventId);
}

/**
 * The event a cloud-sent message uses when the seed shows none (1302, 1501-1503, 1505):
 * 30 is the seed's event for configuration and command messages.
 */
export const defaultDownlinkEvent = 30;
