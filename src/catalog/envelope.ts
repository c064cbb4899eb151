/**
 * The envelope: the identifying fields any message may carry, whatever its id. Their rules are
 * data like the message fields, so validation, types and docs read them from here.
 */
import type { FieldDefinition } from './types.js';

export const envelopeFields = [
  { name: 'tsmId', type: 'Number', integer: true, required: true, description: 'Message id' },
  { name: 'tsmEv', type: 'Number', integer: true, required: false, description: 'Event id (see the events table)' },
  {
    name: 'tsmTs',
    type: 'Number',
    integer: true,
    min: 0,
    required: false,
    unit: 's',
    description: 'Unix time in seconds. Integer expected; an uplink with a fraction is stored with a warning',
  },
  { name: 'tsmTuid', type: 'String', minLength: 1, required: false, description: 'TUID of the sending device' },
  { name: 'tsmGw', type: 'String', minLength: 1, required: false, description: 'TUID of the gateway' },
  {
    name: 'tsmDstTuid',
    type: 'String',
    minLength: 1,
    required: false,
    description: 'TUID of the destination device, on messages to a device',
  },
  {
    name: 'transactionId',
    type: 'Number',
    integer: true,
    required: false,
    description: 'Caller-chosen id on configuration, command and request messages; echoed in the response',
  },
] as const satisfies readonly FieldDefinition[];

export type EnvelopeFieldName = (typeof envelopeFields)[number]['name'];

export const envelopeFieldNames: ReadonlySet<string> = new Set(envelopeFields.map((field) => field.name));

/** Plain-language rules of the envelope, rendered into the docs and served with the catalog. */
export const envelopeRules = [
  'Any message may carry any envelope field; each is type-checked when present.',
  'An uplink is refused (dead-lettered) only when it is not a JSON object, its tsmId is not an integer, ' +
    'its tsmTuid is not a non-empty string or its tsmTs is not a finite number.',
  'Every other problem with an uplink of a known id is a warning: the message is stored and flagged.',
  'A command (POST /things/{tuid}/commands) must carry integer tsmEv and transactionId; tsmTs and tsmDstTuid may be sent.',
] as const;

/** Envelope fields the command endpoint requires (SPEC section 3) beyond tsmId. */
export const commandRequiredEnvelopeFields = ['tsmEv', 'transactionId'] as const satisfies readonly EnvelopeFieldName[];
