/**
 * The `tsmEv` table of seed part 6 as plain data with no imports, so the studio can name events by it without
 * bundling the message definitions (events.ts adds, from those, which messages use each event).
 */
import type { EventDefinition } from './types.js';

export const eventUses: readonly Omit<EventDefinition, 'tsmIds'>[] = [
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

/**
 * Events a device sends back in answer to a command (the echo of 1500 with the applied configuration, the answer to
 * 1101, the remote command response): listed with the command's id in the catalog, but never sent by the cloud, so
 * a send form does not offer them.
 */
export const deviceAnswerEventIds: readonly number[] = [31, 33, 36];
