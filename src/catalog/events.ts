/**
 * The `tsmEv` table of seed part 6. Which messages use an event is not written here but derived
 * from the message definitions, so the two lists cannot disagree.
 */
import { messageDefinitions } from './definitions/index.js';
import type { EventDefinition, MessageDefinition } from './types.js';

const eventUses: readonly Omit<EventDefinition, 'tsmIds'>[] = [
  { id: 10, use: 'Seen on battery reports (1110)' },
  { id: 11, use: 'Seen on system info reports (1100)' },
  { id: 19, use: 'Request of 1201 and 1203' },
  { id: 20, use: 'Response of 1201 and 1203' },
  { id: 23, use: 'Remote reset request (1404)' },
  { id: 25, use: 'Gateway firmware update request (1300)' },
  { id: 27, use: 'Enable diagnostics (1401)' },
  { id: 29, use: 'Error info (1403)' },
  { id: 30, use: 'Configuration and command messages' },
  { id: 31, use: 'Device response to 1500 carrying the applied configuration' },
  { id: 32, use: 'Thing information request (1101)' },
  { id: 33, use: 'Device response to 1101 carrying the requested message (on whichever id was asked for)' },
  { id: 35, use: 'Remote command (1402) and ping request (1600)' },
  { id: 36, use: 'Remote command response (1402)' },
  { id: 101, use: 'Seen on battery reports (1110)' },
];

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
