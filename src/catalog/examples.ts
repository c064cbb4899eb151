/**
 * A valid example of every message id, built from the definitions' `example` values. Used by the
 * table tests, the docs and the fleet simulator, so an example cannot fall out of step with the rules.
 */
import { defaultDownlinkEvent } from './events.js';
import { getMessageDefinition } from './lookup.js';
import type { CatalogMessage, CatalogTsmId } from './message-types.js';
import type { FieldDefinition, MessageDefinition, ValueRules } from './types.js';

/** Envelope values of the examples: a fixed instant and made-up TUIDs. */
export const exampleEnvelope = {
  tsmTs: 1700000000,
  tsmTuid: 'TD-SENSOR-0001',
  tsmGw: 'TD-GW-0001',
  tsmDstTuid: 'TD-SENSOR-0001',
  transactionId: 1001,
} as const;

function exampleValue(rules: ValueRules & { readonly example?: unknown; readonly default?: unknown }): unknown {
  if (rules.example !== undefined) return structuredClone(rules.example);
  if (rules.default !== undefined) return rules.default;
  if (rules.values !== undefined && rules.values[0] !== undefined) return rules.values[0].value;
  switch (rules.type) {
    case 'Number':
      return rules.min ?? 1;
    case 'String':
      return 'example';
    case 'Buffer':
      return '00';
    case 'Array':
      return rules.items === undefined ? [] : [exampleValue(rules.items)];
    case 'Object':
      return exampleObject(rules.fields ?? []);
  }
}

function exampleObject(fields: readonly FieldDefinition[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field.name, exampleValue(field)]));
}

interface MessageForm {
  readonly direction: 'uplink' | 'downlink';
  readonly events: readonly number[];
  readonly fields: readonly FieldDefinition[];
}

function formOf(definition: MessageDefinition, variantName: 'request' | 'response' | undefined): MessageForm {
  const variants = definition.variants ?? [];
  const variant = variantName === undefined ? variants[0] : variants.find((candidate) => candidate.name === variantName);
  if (variant !== undefined) return variant;
  if (variantName !== undefined) throw new RangeError(`message ${definition.tsmId} has no ${variantName} variant`);
  return { direction: definition.direction === 'uplink' ? 'uplink' : 'downlink', events: definition.events, fields: definition.fields };
}

/**
 * A valid message of this id with all its fields and the envelope a real one would carry: tsmTs and
 * tsmTuid/tsmGw on uplinks, tsmDstTuid and transactionId on downlinks, tsmEv from the events table
 * (30 for a downlink whose event the seed does not show; none for such an uplink). For ids with
 * variants the request is the default. Throws RangeError for an id the catalog does not define.
 */
export function exampleMessage<Id extends CatalogTsmId>(tsmId: Id, variantName?: 'request' | 'response'): CatalogMessage<Id>;
export function exampleMessage(tsmId: number, variantName?: 'request' | 'response'): Record<string, unknown>;
export function exampleMessage(tsmId: number, variantName?: 'request' | 'response'): unknown {
  const definition = getMessageDefinition(tsmId);
  if (definition === undefined) throw new RangeError(`message ${tsmId} is not in the catalog`);
  const form = formOf(definition, variantName);
  const tsmEv = form.events[0] ?? (form.direction === 'downlink' ? defaultDownlinkEvent : undefined);
  const { tsmTs, tsmTuid, tsmGw, tsmDstTuid, transactionId } = exampleEnvelope;
  const addressing = form.direction === 'uplink' ? { tsmTuid, tsmGw } : { tsmDstTuid, transactionId };
  return {
    tsmId,
    ...(tsmEv === undefined ? {} : { tsmEv }),
    tsmTs,
    ...addressing,
    ...exampleObject(form.fields),
  };
}
