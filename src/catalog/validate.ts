/**
 * Message validation. Downlinks (cloud to device) are strict: every problem is reported and any
 * problem rejects the message. Uplinks (device to cloud) are lenient (SPEC section 5): only an
 * unreadable envelope is an error; everything else is a warning, so no device data is lost.
 */
import { checkFields, checkValue, isPlainObject } from './check-value.js';
import { commandRequiredEnvelopeFields, envelopeFieldNames, envelopeFields } from './envelope.js';
import { commandTsmIds, fieldsForDirection, getMessageDefinition } from './lookup.js';
import type { FieldDefinition, MessageDefinition, Problem } from './types.js';

const strict = { rejectUnknownFields: true } as const;
const lenient = { rejectUnknownFields: false } as const;

const notAnObject: Problem = { field: '', message: 'message must be a JSON object' };

function label(definition: MessageDefinition): string {
  return `message ${definition.tsmId} (${definition.name})`;
}

/** Type-checks the envelope fields present, except those the message's own fields redefine. */
function checkEnvelope(message: Record<string, unknown>, ownFields: readonly FieldDefinition[]): Problem[] {
  const ownNames = new Set(ownFields.map((field) => field.name));
  return envelopeFields
    .filter((field) => !ownNames.has(field.name) && message[field.name] !== undefined)
    .flatMap((field) => checkValue(message[field.name], field, field.name, strict));
}

/** Drops repeats, e.g. "transactionId is required" from both the command and the 1500 rules. */
function withoutRepeats(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.field}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function checkDownlinkObject(message: Record<string, unknown>): Problem[] {
  const tsmId = message['tsmId'];
  if (tsmId === undefined) return [{ field: 'tsmId', message: 'tsmId is required' }, ...checkEnvelope(message, [])];
  if (typeof tsmId !== 'number' || !Number.isInteger(tsmId)) return checkEnvelope(message, []);
  const definition = getMessageDefinition(tsmId);
  if (definition === undefined) {
    return [{ field: 'tsmId', message: `tsmId ${tsmId} is not a message id of the catalog` }, ...checkEnvelope(message, [])];
  }
  const fields = fieldsForDirection(definition, 'downlink');
  if (fields === undefined) {
    return [
      { field: 'tsmId', message: `tsmId ${tsmId} (${definition.name}) is sent by devices, not to them` },
      ...checkEnvelope(message, []),
    ];
  }
  const options = definition.openPayload === true ? lenient : strict;
  return [
    ...checkEnvelope(message, fields),
    ...checkFields(message, fields, '', options, { ignoredNames: envelopeFieldNames, owner: label(definition) }),
  ];
}

/**
 * Strict check of a cloud-to-device message. Returns every problem, each naming its field path;
 * an empty array means the message may be sent. Envelope fields are accepted on any id.
 */
export function validateDownlink(message: unknown): Problem[] {
  if (!isPlainObject(message)) return [notAnObject];
  return withoutRepeats(checkDownlinkObject(message));
}

/**
 * What `POST /things/{tuid}/commands` needs of one command (SPEC section 3): a tsmId the endpoint
 * accepts, integer tsmEv and transactionId, then the downlink rules of that id. Whether tsmDstTuid
 * matches the path is the caller's check.
 */
export function validateCommand(message: unknown): Problem[] {
  if (!isPlainObject(message)) return [notAnObject];
  const missingEnvelope: Problem[] = commandRequiredEnvelopeFields
    .filter((name) => message[name] === undefined)
    .map((name) => ({ field: name, message: `${name} is required` }));
  const tsmId = message['tsmId'];
  if (!commandTsmIds.some((id) => id === tsmId)) {
    const badId: Problem = { field: 'tsmId', message: `tsmId must be one of ${commandTsmIds.join(', ')}` };
    // The fields of an id we do not accept cannot be judged; the envelope still can.
    const envelopeProblems = checkEnvelope(message, []).filter((problem) => problem.field !== 'tsmId');
    return withoutRepeats([badId, ...missingEnvelope, ...envelopeProblems]);
  }
  return withoutRepeats([...missingEnvelope, ...checkDownlinkObject(message)]);
}

export interface UplinkValidation {
  /** The message cannot be read: refuse it into the dead-letter table with these reasons. */
  readonly errors: Problem[];
  /** The message breaks a known id's rules: store it, flagged with these. */
  readonly warnings: Problem[];
}

function checkReadableEnvelope(message: Record<string, unknown>): Problem[] {
  const errors: Problem[] = [];
  const { tsmId, tsmTuid, tsmTs } = message;
  if (typeof tsmId !== 'number' || !Number.isInteger(tsmId)) errors.push({ field: 'tsmId', message: 'tsmId must be an integer' });
  if (typeof tsmTuid !== 'string' || tsmTuid.length === 0) {
    errors.push({ field: 'tsmTuid', message: 'tsmTuid must be a non-empty string' });
  }
  if (typeof tsmTs !== 'number' || !Number.isFinite(tsmTs)) {
    errors.push({ field: 'tsmTs', message: 'tsmTs must be a finite number (Unix time in seconds)' });
  }
  return errors;
}

/**
 * Lenient check of a device-to-cloud message. Unknown ids and unlisted fields produce nothing; a
 * known id's rule breaks (and a fractional tsmTs) are warnings; only an unreadable envelope is an error.
 */
export function validateUplink(message: unknown): UplinkValidation {
  if (!isPlainObject(message)) return { errors: [notAnObject], warnings: [] };
  const errors = checkReadableEnvelope(message);
  if (errors.length > 0) return { errors, warnings: [] };
  const definition = getMessageDefinition(message['tsmId'] as number);
  const fields = definition === undefined ? [] : (fieldsForDirection(definition, 'uplink') ?? []);
  const warnings = [...checkEnvelope(message, fields), ...checkFields(message, fields, '', lenient)];
  return { errors: [], warnings: withoutRepeats(warnings) };
}
