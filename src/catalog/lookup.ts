/** Finding definitions by id, and the views of them that validation and examples need. */
import { messageDefinitions } from './definitions/index.js';
import type { CatalogTsmId, CommandTsmId } from './message-types.js';
import type { FieldDefinition, MessageDefinition } from './types.js';

const definitionsById: ReadonlyMap<number, MessageDefinition> = new Map(
  messageDefinitions.map((definition): [number, MessageDefinition] => [definition.tsmId, definition]),
);

/** The definition of a message id, or undefined when the catalog does not know it. */
export function getMessageDefinition(tsmId: number): MessageDefinition | undefined {
  return definitionsById.get(tsmId);
}

/** Narrows a number to an id the catalog defines. */
export function isCatalogTsmId(tsmId: number): tsmId is CatalogTsmId {
  return definitionsById.has(tsmId);
}

/** Ids accepted by `POST /things/{tuid}/commands`, read from the definitions' `commandEndpoint` flag. */
export const commandTsmIds: readonly CommandTsmId[] = messageDefinitions
  .filter((definition) => definition.commandEndpoint)
  .map((definition) => definition.tsmId as CommandTsmId);

/**
 * The fields a message of this id has when sent in this direction, or undefined when the id is
 * never sent that way. Ids with variants answer with the variant for that direction. A device may
 * send a cloud-only id back (the event-31 echo of a configuration), so uplinks always get fields.
 */
export function fieldsForDirection(
  definition: MessageDefinition,
  direction: 'uplink' | 'downlink',
): readonly FieldDefinition[] | undefined {
  if (definition.variants !== undefined) {
    return definition.variants.find((variant) => variant.direction === direction)?.fields;
  }
  if (direction === 'downlink' && definition.direction === 'uplink') return undefined;
  return definition.fields;
}
