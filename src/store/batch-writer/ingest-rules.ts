import type { DeadLetterRecord, UplinkRecord } from '../../domain/messages/message-types.js';

// Shared by both batch writers and by the SQLite writer thread, which must not load the PostgreSQL driver.

/** Who the installation history names for a thing's first sighting through an uplink. */
export const claimResponsible = 'uplink';

/** The dead-letter reason of a message whose thing another organization owns. */
export function foreignThingReason(tuid: string): string {
  return `thing ${tuid} belongs to another organization`;
}

/** The dead letter recording a message diverted because its thing belongs to another organization. */
export function foreignThingDeadLetter(
  record: Pick<UplinkRecord, 'organizationId' | 'receivedAt' | 'gatewayTuid' | 'tuid' | 'body'>,
): DeadLetterRecord {
  return {
    organizationId: record.organizationId,
    receivedAt: record.receivedAt,
    source: `uplink via gateway ${record.gatewayTuid ?? 'unknown'}`,
    client: null,
    reason: foreignThingReason(record.tuid),
    payload: record.body,
  };
}
